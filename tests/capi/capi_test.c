/* The C API from C: every error path gives its status and one line, and the success paths
 * give plausible frames. Usage: capi_test SCRATCH_DIR (for a corrupt model file). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framecast/framecast.h"

static int failures = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

/* The call failed with `want` and a one-line message containing `needle`. */
#define EXPECT_ERROR(call, want, needle) expect_error((call), (want), (needle), __LINE__)
static void expect_error(framecast_status got, framecast_status want, const char* needle, int line) {
  const char* message = framecast_last_error();
  if (got != want || !strstr(message, needle) || strchr(message, '\n')) {
    fprintf(stderr, "%s:%d: got %s \"%s\", wanted %s containing \"%s\"\n", __FILE__, line,
            framecast_status_name(got), message, framecast_status_name(want), needle);
    ++failures;
  }
}

#define EXPECT_OK(call) expect_ok((call), __LINE__)
static void expect_ok(framecast_status got, int line) {
  if (got != FRAMECAST_OK) {
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, line, framecast_status_name(got),
            framecast_last_error());
    exit(1); /* what follows needs this call's result */
  }
}

enum { W = 72, H = 40, PAD = 5 }; /* not multiples of 16: the runtime pads and crops */

/* A textured scene: soft diagonal stripes and a bright disc whose centre moves right by
 * `shift` pixels, rows PAD bytes longer than the pixels (which hold 0xab). */
static unsigned char* scene(double shift) {
  const size_t stride = W * 3 + PAD;
  unsigned char* p = malloc(stride * H);
  memset(p, 0xab, stride * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const double stripes = 0.5 + 0.5 * sin((x + 2.0 * y) * 0.35);
      const double dx = x - (24.0 + shift), dy = y - 20.0;
      const double disc = 1.0 / (1.0 + exp((sqrt(dx * dx + dy * dy) - 9.0) * 1.5));
      for (int c = 0; c < 3; ++c) {
        const double v = (40 + 30 * c) * stripes * (1 - disc) + (230 - 40 * c) * disc;
        p[y * stride + x * 3 + c] = (unsigned char)(v + 0.5);
      }
    }
  return p;
}

static framecast_frame frame8(void* data) {
  framecast_frame f = {data, W, H, W * 3 + PAD, 8};
  return f;
}

static double mean_abs_diff(const unsigned char* a, const unsigned char* b) {
  double sum = 0;
  for (int y = 0; y < H; ++y)
    for (int i = 0; i < W * 3; ++i) sum += fabs((double)a[y * (W * 3 + PAD) + i] - b[y * (W * 3 + PAD) + i]);
  return sum / (W * H * 3);
}

static void* other_thread(void* unused) {
  (void)unused;
  CHECK(strcmp(framecast_last_error(), "") == 0); /* the main thread's error is not here */
  EXPECT_ERROR(framecast_backend_count(NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "count is NULL");
  return NULL;
}

static void test_library(void) {
  int major = -1, minor = -1, patch = -1;
  char expected[32];
  framecast_version(&major, &minor, &patch);
  CHECK(major == FRAMECAST_VERSION_MAJOR && minor == FRAMECAST_VERSION_MINOR &&
        patch == FRAMECAST_VERSION_PATCH);
  snprintf(expected, sizeof expected, "%d.%d.%d", major, minor, patch);
  CHECK(strcmp(framecast_version_string(), expected) == 0);
  framecast_version(NULL, NULL, NULL);
  CHECK(strcmp(framecast_status_name(FRAMECAST_ERROR_IO), "FRAMECAST_ERROR_IO") == 0);
  CHECK(strcmp(framecast_status_name((framecast_status)99), "unknown status") == 0);

  int count = 0, has_cpu = 0;
  const char* name = NULL;
  EXPECT_OK(framecast_backend_count(&count));
  CHECK(count >= 3);
  for (int i = 0; i < count; ++i) {
    EXPECT_OK(framecast_backend_name(i, &name));
    has_cpu |= strcmp(name, "cpu") == 0;
  }
  CHECK(has_cpu);
  EXPECT_ERROR(framecast_backend_name(count, &name), FRAMECAST_ERROR_INVALID_ARGUMENT, "no backend");
  EXPECT_ERROR(framecast_backend_name(0, NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "name is NULL");

  /* ctest points the Vulkan loader at lavapipe, a software device. */
  framecast_device_info info;
  memset(&info, 0, sizeof info);
  EXPECT_OK(framecast_device_count(&count));
  EXPECT_ERROR(framecast_device_get(0, &info), FRAMECAST_ERROR_INVALID_ARGUMENT, "struct_size");
  info.struct_size = sizeof info;
  EXPECT_ERROR(framecast_device_get(count, &info), FRAMECAST_ERROR_INVALID_ARGUMENT, "no device");
  EXPECT_ERROR(framecast_device_get(0, NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "info is NULL");
  EXPECT_ERROR(framecast_device_count(NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "count is NULL");
  for (int i = 0; i < count; ++i) {
    EXPECT_OK(framecast_device_get(i, &info));
    CHECK(info.index == i && info.name[0] != '\0' && info.usable == (info.reason[0] == '\0'));
    printf("device %d: %s (%s)\n", i, info.name, info.hardware ? "hardware" : "software");
  }

  /* The last error is per thread. */
  pthread_t thread;
  CHECK(strstr(framecast_last_error(), "count is NULL") != NULL);
  CHECK(pthread_create(&thread, NULL, other_thread, NULL) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK(strstr(framecast_last_error(), "framecast_device_count: count is NULL") != NULL);
}

static void test_model_errors(const char* scratch) {
  framecast_model* model = (framecast_model*)&model; /* must be reset to NULL on failure */
  framecast_options options;
  framecast_options_init(&options);
  options.backend = "cpu";

  EXPECT_ERROR(framecast_model_load("fast", &options, NULL), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "model is NULL");
  EXPECT_ERROR(framecast_model_load("/nonexistent/model.safetensors", &options, &model),
               FRAMECAST_ERROR_IO, "model file not found");
  CHECK(model == NULL);
  EXPECT_ERROR(framecast_model_load("no-such-model", &options, &model), FRAMECAST_ERROR_MODEL,
               "no model named 'no-such-model'");

  char bad[1024];
  snprintf(bad, sizeof bad, "%s/corrupt.safetensors", scratch);
  FILE* f = fopen(bad, "wb");
  CHECK(f != NULL);
  /* A safetensors header whose only tensor has no shape, dtype or offsets. */
  static const char corrupt[] = "\x20\0\0\0\0\0\0\0{\"block0.conv0.0.weight\": 17}   ";
  CHECK(fwrite(corrupt, 1, sizeof corrupt - 1, f) == sizeof corrupt - 1);
  fclose(f);
  EXPECT_ERROR(framecast_model_load(bad, &options, &model), FRAMECAST_ERROR_MODEL, "corrupt.safetensors");

  options.backend = "gpu";
  EXPECT_ERROR(framecast_model_load("fast", &options, &model), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "unknown backend 'gpu'");
  options.backend = "cpu";
  options.ensemble = 3;
  EXPECT_ERROR(framecast_model_load("fast", &options, &model), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "ensemble of 3");
  options.ensemble = 1;
  options.precision = (framecast_precision)9;
  EXPECT_ERROR(framecast_model_load("fast", &options, &model), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "unknown precision 9");
  options.precision = FRAMECAST_PRECISION_AUTO;
  options.struct_size = 0; /* not initialised */
  EXPECT_ERROR(framecast_model_load("fast", &options, &model), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "framecast_options_init");

  /* A newer header's larger struct: unknown fields must be left at zero. */
  struct {
    framecast_options known;
    int newer_field;
  } newer;
  memset(&newer, 0, sizeof newer); /* what a newer framecast_options_init would do */
  framecast_options_init(&newer.known);
  newer.known.backend = "cpu";
  newer.known.struct_size = sizeof newer;
  newer.newer_field = 1;
  EXPECT_ERROR(framecast_model_load("fast", &newer.known, &model), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "does not know");
  newer.newer_field = 0;
  EXPECT_OK(framecast_model_load("fast", &newer.known, &model));
  framecast_model_destroy(model);
  framecast_model_destroy(NULL);
}

static void test_interpolation(void) {
  framecast_options options;
  framecast_options_init(&options);
  options.backend = "cpu";
  framecast_model* model = NULL;
  EXPECT_OK(framecast_model_load(NULL, &options, &model)); /* NULL: the default model */
  const char *backend = NULL, *source = NULL, *warning = NULL;
  EXPECT_OK(framecast_model_backend(model, &backend));
  EXPECT_OK(framecast_model_source(model, &source));
  EXPECT_OK(framecast_model_warning(model, &warning));
  CHECK(strcmp(backend, "cpu") == 0);
  CHECK(strstr(source, "framecast-fast.safetensors") != NULL);
  CHECK(strcmp(warning, "") == 0);
  EXPECT_ERROR(framecast_model_backend(NULL, &backend), FRAMECAST_ERROR_INVALID_ARGUMENT, "model is NULL");
  EXPECT_ERROR(framecast_model_source(model, NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "path is NULL");

  framecast_runtime* rt = NULL;
  EXPECT_ERROR(framecast_runtime_create(model, 0, H, &rt), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "frame size 0x40 has no pixels");
  EXPECT_ERROR(framecast_runtime_create(model, W, -1, &rt), FRAMECAST_ERROR_INVALID_ARGUMENT, "no pixels");
  EXPECT_ERROR(framecast_runtime_create(NULL, W, H, &rt), FRAMECAST_ERROR_INVALID_ARGUMENT, "model is NULL");
  EXPECT_ERROR(framecast_runtime_create(model, W, H, NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "runtime is NULL");
  EXPECT_OK(framecast_runtime_create(model, W, H, &rt));
  /* The runtime keeps what it needs of the model. */
  framecast_model_destroy(model);

  unsigned char *a = scene(0), *b = scene(6), *truth = scene(3), *mid = scene(0), *batch[3];
  framecast_frame f0 = frame8(a), f1 = frame8(b), out = frame8(mid), outs[3];
  const float ts[3] = {0.25f, 0.5f, 0.75f};
  for (int i = 0; i < 3; ++i) {
    batch[i] = scene(0);
    outs[i] = frame8(batch[i]);
  }

  EXPECT_ERROR(framecast_mid(rt, 0.5f, &out), FRAMECAST_ERROR_INVALID_ARGUMENT, "no pair is prepared");
  EXPECT_ERROR(framecast_prepare_pair(NULL, &f0, &f1), FRAMECAST_ERROR_INVALID_ARGUMENT, "runtime is NULL");
  EXPECT_ERROR(framecast_prepare_pair(rt, NULL, &f1), FRAMECAST_ERROR_INVALID_ARGUMENT, "frame0 is NULL");
  framecast_frame bad = f1;
  bad.data = NULL;
  EXPECT_ERROR(framecast_prepare_pair(rt, &f0, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT, "frame1->data is NULL");
  bad = f0;
  bad.bits = 12;
  EXPECT_ERROR(framecast_prepare_pair(rt, &bad, &f1), FRAMECAST_ERROR_INVALID_ARGUMENT, "12 bits per sample");
  bad = f0;
  bad.width = W - 1;
  bad.stride = (W - 1) * 3;
  EXPECT_ERROR(framecast_prepare_pair(rt, &bad, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "frame0 is 71x40, the runtime's frames are 72x40");
  bad = f1;
  bad.height = H / 2;
  EXPECT_ERROR(framecast_prepare_pair(rt, &f0, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT, "frame1 is 72x20");
  bad = f1;
  bad.height = 0;
  EXPECT_ERROR(framecast_prepare_pair(rt, &f0, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT, "frame1 is 72x0");
  bad = f1;
  bad.stride = W * 3 - 1;
  EXPECT_ERROR(framecast_prepare_pair(rt, &f0, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "frame1's stride 215 is less than a row's 216 bytes");
  bad = f1;
  bad.bits = 16;
  bad.stride = W * 6;
  EXPECT_ERROR(framecast_prepare_pair(rt, &f0, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "frame0 has 8 bits per sample and frame1 16");

  EXPECT_OK(framecast_prepare_pair(rt, &f0, &f1));
  EXPECT_OK(framecast_mid(rt, 0.5f, &out));
  /* Between the frames: closer to the scene at the halfway point than either frame is. */
  const double error = mean_abs_diff(mid, truth);
  printf("mean |mid - truth| %.2f, |frame0 - truth| %.2f, |frame1 - truth| %.2f\n", error,
         mean_abs_diff(a, truth), mean_abs_diff(b, truth));
  CHECK(error < mean_abs_diff(a, truth) && error < mean_abs_diff(b, truth));
  for (int y = 0; y < H; ++y) /* the rows' padding is not written */
    CHECK(memcmp(mid + y * (W * 3 + PAD) + W * 3, a + y * (W * 3 + PAD) + W * 3, PAD) == 0);

  /* The batch equals mids one at a time. */
  EXPECT_OK(framecast_mids(rt, ts, outs, 3));
  CHECK(memcmp(batch[1], mid, (W * 3 + PAD) * H - PAD) == 0);
  CHECK(mean_abs_diff(batch[0], a) < mean_abs_diff(batch[2], a));
  EXPECT_OK(framecast_mids(rt, ts, NULL, 0));

  /* Invalid t or outputs: nothing is written. */
  const float bad_ts[3] = {0.25f, 1.5f, 0.75f};
  memset(batch[0], 7, (W * 3 + PAD) * H);
  EXPECT_ERROR(framecast_mids(rt, bad_ts, outs, 3), FRAMECAST_ERROR_INVALID_ARGUMENT, "t = 1.5");
  CHECK(batch[0][0] == 7);
  EXPECT_ERROR(framecast_mid(rt, -0.1f, &out), FRAMECAST_ERROR_INVALID_ARGUMENT, "outside [0, 1]");
  EXPECT_ERROR(framecast_mid(rt, NAN, &out), FRAMECAST_ERROR_INVALID_ARGUMENT, "outside [0, 1]");
  EXPECT_ERROR(framecast_mid(rt, 0.5f, NULL), FRAMECAST_ERROR_INVALID_ARGUMENT, "framecast_mid: out is NULL");
  EXPECT_ERROR(framecast_mids(rt, NULL, outs, 3), FRAMECAST_ERROR_INVALID_ARGUMENT, "ts is NULL");
  outs[2].width = W + 1;
  EXPECT_ERROR(framecast_mids(rt, ts, outs, 3), FRAMECAST_ERROR_INVALID_ARGUMENT, "outs[2] is 73x40");
  CHECK(batch[0][0] == 7);
  outs[2].width = W;
  out.bits = 16;
  out.stride = W * 6;
  EXPECT_ERROR(framecast_mid(rt, 0.5f, &out), FRAMECAST_ERROR_INVALID_ARGUMENT,
               "out has 16 bits per sample, the pair 8");

  /* 16-bit frames: the same scene 257 times brighter gives about the same mid. */
  unsigned short *a16 = malloc(W * H * 6), *b16 = malloc(W * H * 6), *mid16 = malloc(W * H * 6);
  for (int y = 0; y < H; ++y)
    for (int i = 0; i < W * 3; ++i) {
      a16[y * W * 3 + i] = (unsigned short)(a[y * (W * 3 + PAD) + i] * 257);
      b16[y * W * 3 + i] = (unsigned short)(b[y * (W * 3 + PAD) + i] * 257);
    }
  framecast_frame g0 = {a16, W, H, W * 6, 16}, g1 = {b16, W, H, W * 6, 16}, gout = {mid16, W, H, W * 6, 16};
  EXPECT_OK(framecast_prepare_pair(rt, &g0, &g1));
  EXPECT_OK(framecast_mid(rt, 0.5f, &gout));
  double worst = 0;
  for (int y = 0; y < H; ++y)
    for (int i = 0; i < W * 3; ++i) {
      const double d = fabs(mid16[y * W * 3 + i] / 257.0 - mid[y * (W * 3 + PAD) + i]);
      worst = d > worst ? d : worst;
    }
  printf("16-bit mid vs 8-bit mid: at most %.2f levels of 255 apart\n", worst);
  CHECK(worst < 4.0);

  /* After a failed prepare_pair no pair is prepared. */
  EXPECT_ERROR(framecast_prepare_pair(rt, &f0, &bad), FRAMECAST_ERROR_INVALID_ARGUMENT, "frame1");
  EXPECT_ERROR(framecast_mid(rt, 0.5f, &gout), FRAMECAST_ERROR_INVALID_ARGUMENT, "no pair is prepared");

  framecast_runtime_destroy(rt);
  framecast_runtime_destroy(NULL);
  free(a16), free(b16), free(mid16);
  for (int i = 0; i < 3; ++i) free(batch[i]);
  free(a), free(b), free(truth), free(mid);
}

/* One thread's work on the shared model: its own runtime, the pair, the mid at 0.5. */
struct job {
  framecast_model* model;
  unsigned char *frame0, *frame1, *mid;
  framecast_status status;
};

static void* run_job(void* arg) {
  struct job* job = arg;
  framecast_runtime* rt = NULL;
  framecast_frame f0 = frame8(job->frame0), f1 = frame8(job->frame1), out = frame8(job->mid);
  job->status = framecast_runtime_create(job->model, W, H, &rt);
  if (job->status == FRAMECAST_OK) job->status = framecast_prepare_pair(rt, &f0, &f1);
  if (job->status == FRAMECAST_OK) job->status = framecast_mid(rt, 0.5f, &out);
  framecast_runtime_destroy(rt);
  return NULL;
}

/* Runtimes of one model on several threads at once (the header says the library serializes
 * them) give what one thread gets; and the Vulkan backend (lavapipe under ctest) agrees with
 * the CPU to within rounding. */
static void test_threads_and_backends(void) {
  unsigned char *a = scene(0), *b = scene(6);
  struct job jobs[3];
  pthread_t threads[3];
  framecast_options options;
  framecast_options_init(&options);
  options.backend = "cpu";
  options.precision = FRAMECAST_PRECISION_F32;
  framecast_model* model = NULL;
  EXPECT_OK(framecast_model_load("fast", &options, &model));
  for (int i = 0; i < 3; ++i) {
    struct job job = {model, a, b, scene(0), FRAMECAST_ERROR_INTERNAL};
    jobs[i] = job;
  }
  run_job(&jobs[0]);
  for (int i = 1; i < 3; ++i) CHECK(pthread_create(&threads[i], NULL, run_job, &jobs[i]) == 0);
  for (int i = 1; i < 3; ++i) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(jobs[i].status == FRAMECAST_OK);
    CHECK(memcmp(jobs[i].mid, jobs[0].mid, (W * 3 + PAD) * H) == 0);
  }
  framecast_model_destroy(model);

  int devices = 0;
  framecast_device_info info;
  info.struct_size = sizeof info;
  EXPECT_OK(framecast_device_count(&devices));
  for (int i = 0; i < devices; ++i) {
    EXPECT_OK(framecast_device_get(i, &info));
    if (!info.usable) continue;
    options.backend = "vulkan";
    options.device = i;
    struct job gpu = {NULL, a, b, scene(0), FRAMECAST_ERROR_INTERNAL};
    EXPECT_OK(framecast_model_load("fast", &options, &gpu.model));
    run_job(&gpu);
    CHECK(gpu.status == FRAMECAST_OK);
    const double difference = mean_abs_diff(gpu.mid, jobs[0].mid);
    printf("%s: mean |vulkan - cpu| %.3f\n", info.name, difference);
    CHECK(difference < 0.5);
    framecast_model_destroy(gpu.model);
    free(gpu.mid);
    break; /* one device is enough */
  }
  for (int i = 0; i < 3; ++i) free(jobs[i].mid);
  free(a), free(b);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi_test SCRATCH_DIR\n");
    return 2;
  }
  CHECK(strcmp(framecast_last_error(), "") == 0);
  test_library();
  test_model_errors(argv[1]);
  test_interpolation();
  test_threads_and_backends();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
