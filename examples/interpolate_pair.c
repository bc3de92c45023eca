/* Framecast from C: two frames of a moving scene, the frame halfway between them, and then
 * frames at several positions from one prepared pair, written as PPM images.
 *
 *   cc interpolate_pair.c $(pkg-config --cflags --libs framecast) -lm -o interpolate_pair
 *   ./interpolate_pair [OUTPUT_PREFIX [BACKEND [MODEL]]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <framecast/framecast.h>

enum { WIDTH = 320, HEIGHT = 180 };

/* A sky gradient with a ball at x = `ball_x`, as 8-bit RGB rows without padding. */
static unsigned char* draw(double ball_x) {
  unsigned char* rgb = malloc(WIDTH * HEIGHT * 3);
  if (!rgb) exit(1);
  for (int y = 0; y < HEIGHT; ++y)
    for (int x = 0; x < WIDTH; ++x) {
      const double d = hypot(x - ball_x, y - HEIGHT / 2.0);
      const int inside = d < 30, rim = fabs(d - 30) < 1.5;
      unsigned char* p = rgb + (y * WIDTH + x) * 3;
      p[0] = (unsigned char)(inside ? 220 : rim ? 90 : 60 + y / 3);
      p[1] = (unsigned char)(inside ? 120 + (x + y) % 32 : rim ? 40 : 110 + y / 2);
      p[2] = (unsigned char)(inside ? 40 : rim ? 20 : 200);
    }
  return rgb;
}

static int write_ppm(const char* path, const framecast_frame* frame) {
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  fprintf(f, "P6\n%d %d\n255\n", frame->width, frame->height);
  const size_t bytes = (size_t)frame->width * frame->height * 3;
  const int ok = fwrite(frame->data, 1, bytes, f) == bytes;
  return fclose(f) == 0 && ok;
}

/* Prints the failed call's message and exits. */
static void check(framecast_status status) {
  if (status == FRAMECAST_OK) return;
  fprintf(stderr, "interpolate_pair: %s\n", framecast_last_error());
  exit(1);
}

int main(int argc, char** argv) {
  const char* prefix = argc > 1 ? argv[1] : "mid";
  framecast_options options;
  framecast_options_init(&options);
  options.backend = argc > 2 ? argv[2] : "auto";

  framecast_model* model;
  const char *backend, *source, *warning;
  check(framecast_model_load(argc > 3 ? argv[3] : "fast", &options, &model));
  check(framecast_model_backend(model, &backend));
  check(framecast_model_source(model, &source));
  check(framecast_model_warning(model, &warning));
  printf("Framecast %s, backend %s, model %s\n", framecast_version_string(), backend, source);
  if (*warning) fprintf(stderr, "interpolate_pair: warning: %s\n", warning);

  framecast_runtime* runtime;
  check(framecast_runtime_create(model, WIDTH, HEIGHT, &runtime));
  framecast_model_destroy(model); /* the runtime keeps what it needs */

  framecast_frame frame0 = {draw(100), WIDTH, HEIGHT, WIDTH * 3, 8};
  framecast_frame frame1 = {draw(124), WIDTH, HEIGHT, WIDTH * 3, 8};
  framecast_frame out = {draw(0), WIDTH, HEIGHT, WIDTH * 3, 8};
  check(framecast_prepare_pair(runtime, &frame0, &frame1)); /* the pair's work, once */

  char path[4096];
  const float ts[] = {0.5f, 0.2f, 0.4f, 0.6f, 0.8f};
  for (int i = 0; i < 5; ++i) { /* one frame at a time, as a player paces them */
    check(framecast_mid(runtime, ts[i], &out));
    snprintf(path, sizeof path, "%s-%.2f.ppm", prefix, ts[i]);
    if (!write_ppm(path, &out)) {
      fprintf(stderr, "interpolate_pair: cannot write %s\n", path);
      return 1;
    }
    printf("t = %.2f: %s\n", ts[i], path);
  }
  framecast_runtime_destroy(runtime);
  free(frame0.data), free(frame1.data), free(out.data);
  return 0;
}
