/* Framecast's C API: frame interpolation for programs that are not C++ (C, Python, Rust, Go,
 * media players). C99; link with libframecast.so (pkg-config framecast, or CMake's
 * find_package(Framecast) and Framecast::framecast).
 *
 * Use: load a model with options (framecast_model_load), create a runtime for one frame size
 * (framecast_runtime_create), then per pair of frames call framecast_prepare_pair once and
 * framecast_mid (one t at a time, for callers that pace their output) or framecast_mids (many
 * t in one batch). The pair's work that does not depend on t runs once, in prepare_pair.
 *
 * Errors. Every call that can fail returns a framecast_status: FRAMECAST_OK (0) or an error,
 * and then framecast_last_error() holds one line saying what went wrong. A failed call leaves
 * its outputs unwritten (handles it would return are set to NULL). No C++ exception crosses
 * this API; running out of memory is FRAMECAST_ERROR_OUT_OF_MEMORY.
 *
 * Ownership. The caller owns every pixel buffer and string it passes: the library reads input
 * frames and strings during the call, writes output frames during the call, and keeps no
 * pointer to any of them. Handles are created by the library and freed by their destroy
 * function (which accepts NULL). A runtime keeps its model's backend alive: a model may be
 * destroyed before its runtimes. Strings the library returns are owned by it, for as long as
 * each function says.
 *
 * Threading. Every function may be called from any thread. The calls on one model and on the
 * runtimes created from it run one at a time (they share one backend and one device queue),
 * so for work in parallel load the model once per thread. A runtime holds one prepared pair:
 * a caller that shares a runtime between threads must order prepare_pair and mid itself. A
 * handle must not be destroyed while another thread is inside a call on it.
 *
 * ABI stability. Handles are opaque. Structs that may grow (framecast_options,
 * framecast_device_info) start with struct_size, which the caller sets to sizeof(the struct)
 * as its header declares it (framecast_options_init does); later versions only append fields
 * and accept the sizes of earlier ones, reading and writing only the fields struct_size
 * covers. Options from a newer header are accepted while the fields this library does not know
 * are zero. framecast_frame never changes. Enum values never change; new ones are added at
 * the end, so treat an unknown status as an error.
 * Functions are never removed or changed within one soname (libframecast.so.0); an ABI break
 * changes the soname. Exported symbols carry the version node FRAMECAST_0.
 */
#ifndef FRAMECAST_FRAMECAST_H
#define FRAMECAST_FRAMECAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; framecast_version() gives the library's. */
#define FRAMECAST_VERSION_MAJOR 0
#define FRAMECAST_VERSION_MINOR 1
#define FRAMECAST_VERSION_PATCH 0

typedef enum framecast_status {
  FRAMECAST_OK = 0,
  FRAMECAST_ERROR_INVALID_ARGUMENT = 1, /* a NULL, a size, a stride, t outside [0, 1], ... */
  FRAMECAST_ERROR_IO = 2,               /* a file is missing or unreadable */
  FRAMECAST_ERROR_MODEL = 3,            /* a model is malformed, or no shipped model has the name */
  FRAMECAST_ERROR_UNSUPPORTED = 4,      /* the backend cannot run this model or option */
  FRAMECAST_ERROR_DEVICE = 5,           /* no usable GPU, device lost */
  FRAMECAST_ERROR_OUT_OF_MEMORY = 6,    /* host or device memory exhausted */
  FRAMECAST_ERROR_INTERNAL = 7          /* a bug in Framecast */
} framecast_status;

typedef enum framecast_precision {
  /* f16 on GPUs that have it, bf16 on CPUs with bfloat16 instructions, else f32 */
  FRAMECAST_PRECISION_AUTO = 0,
  FRAMECAST_PRECISION_F32 = 1,
  FRAMECAST_PRECISION_F16 = 2,  /* GPUs */
  FRAMECAST_PRECISION_BF16 = 3  /* CPUs with bfloat16 instructions */
} framecast_precision;

typedef struct framecast_model framecast_model;     /* a loaded model on its backend */
typedef struct framecast_runtime framecast_runtime; /* a model's buffers for one frame size */

/* The library's version, and as "0.1.0" (static storage). Any pointer may be NULL. */
void framecast_version(int* major, int* minor, int* patch);
const char* framecast_version_string(void);

/* One line about the last failed call on this thread ("" before any). The text stays valid
 * until the next failed call on this thread; successful calls leave it unchanged. */
const char* framecast_last_error(void);
/* The status's name, e.g. "FRAMECAST_ERROR_IO" (static storage; "unknown status" otherwise). */
const char* framecast_status_name(framecast_status status);

/* ---- Backends and devices, as `framecast info` lists them ---- */

/* The backends of this build: "auto", "cpu", "cpu-reference" and, when built, "vulkan".
 * *name has static storage. */
framecast_status framecast_backend_count(int* count);
framecast_status framecast_backend_name(int index, const char** name);

typedef struct framecast_device_info {
  size_t struct_size;         /* set by the caller: sizeof(framecast_device_info) */
  int index;                  /* the value for framecast_options.device */
  char name[256];             /* e.g. "NVIDIA H200" or "llvmpipe (LLVM 15.0.6, 256 bits)" */
  int hardware;               /* 1: a hardware GPU; 0: a software rasterizer (lavapipe) */
  int usable;                 /* 0 when Framecast cannot run on it; reason says why */
  char reason[256];           /* "" when usable */
  int f16;                    /* 1 when f16 arithmetic and 16-bit storage are there */
  uint32_t vendor_id;
  uint32_t device_id;
  uint64_t memory_bytes;      /* device-local memory */
} framecast_device_info;

/* The Vulkan devices (GPUs, and software ones such as lavapipe). No Vulkan loader, no device
 * or a build without Vulkan gives a count of 0, not an error. Each call enumerates anew. */
framecast_status framecast_device_count(int* count);
framecast_status framecast_device_get(int index, framecast_device_info* info);

/* ---- Models ---- */

typedef struct framecast_options {
  size_t struct_size;            /* sizeof(framecast_options); framecast_options_init sets it */
  const char* backend;           /* "auto" (NULL means it too), "cpu", "cpu-reference", "vulkan" */
  int device;                    /* a device index for GPU backends; -1 picks the best */
  framecast_precision precision; /* storage of activations and weights */
  int ensemble;                  /* 1, 2 or 4 runs of the model averaged per frame */
  int large_motion;              /* 1: the half-resolution flow pass (shipped models want it) */
  int static_guard;              /* 1: keep regions identical in both frames untouched */
} framecast_options;

/* The defaults, as the command-line tool has them. Inline, so that it fills exactly the
 * struct this header declares; it zeroes the whole struct first, because a library older than
 * the header accepts fields it does not know only while they are zero. */
static inline void framecast_options_init(framecast_options* options) {
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof(framecast_options);
  options->backend = "auto";
  options->device = -1;
  options->precision = FRAMECAST_PRECISION_AUTO;
  options->ensemble = 1;
  options->large_motion = 1;
  options->static_guard = 0;
}

/* Loads a model: a .safetensors file, a .json manifest beside its .bin, or a shipped name
 * ("fast", "quality", "slim"; "default" and NULL are "fast"), found beside the program, beside
 * libframecast.so in its prefix's share/framecast/models, or in the installed prefix's. Starts
 * the backend (options NULL: the defaults above). `auto` that falls back to the CPU is not an
 * error: framecast_model_warning says so. On success *model is a new handle. */
framecast_status framecast_model_load(const char* model_name_or_path,
                                      const framecast_options* options, framecast_model** model);
void framecast_model_destroy(framecast_model* model);
/* Strings owned by the model, valid until it is destroyed: the backend it runs on ("cpu",
 * "vulkan", ...), the file it was read from, and a note for the user ("" when none), such as
 * `auto` falling back to the CPU. */
framecast_status framecast_model_backend(const framecast_model* model, const char** backend);
framecast_status framecast_model_source(const framecast_model* model, const char** path);
framecast_status framecast_model_warning(const framecast_model* model, const char** warning);

/* ---- Runtimes and frames ---- */

/* A caller-owned frame: interleaved RGB, 8 or 16 bits per sample (16-bit samples in the
 * machine's byte order, need no alignment), rows `stride` bytes apart (at least
 * width * 3 * bits / 8). Input frames are only read; output frames' rows are written only in
 * their first width * 3 * bits / 8 bytes. */
typedef struct framecast_frame {
  void* data;
  int width;
  int height;
  size_t stride; /* bytes from one row to the next */
  int bits;      /* 8 or 16 */
} framecast_frame;

/* A runtime for frames of width x height (any size from 1x1; padded internally). On success
 * *runtime is a new handle. */
framecast_status framecast_runtime_create(framecast_model* model, int width, int height,
                                          framecast_runtime** runtime);
void framecast_runtime_destroy(framecast_runtime* runtime);

/* Reads the pair (the runtime's size, one depth) and does the work that does not depend on
 * t. The pair stays prepared until the next prepare_pair; after a failed one, none is. */
framecast_status framecast_prepare_pair(framecast_runtime* runtime, const framecast_frame* frame0,
                                        const framecast_frame* frame1);
/* As framecast_prepare_pair(runtime, F, next), F being the second frame of the pair prepared
 * last (FRAMECAST_ERROR_INVALID_ARGUMENT when none is, or when next's depth differs): a video's
 * consecutive pairs share a frame, which the runtime keeps (on a GPU it is not uploaded
 * again). */
framecast_status framecast_prepare_next(framecast_runtime* runtime, const framecast_frame* next);
/* Writes the frame at t in [0, 1] between the prepared pair (0 = frame0) to `out`, which has
 * the runtime's size and the pair's depth. */
framecast_status framecast_mid(framecast_runtime* runtime, float t, const framecast_frame* out);
/* The frames at ts[0..count) into outs[0..count), computed in one batch. Nothing is written
 * unless every t and every output is valid. */
framecast_status framecast_mids(framecast_runtime* runtime, const float* ts,
                                const framecast_frame* outs, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* FRAMECAST_FRAMECAST_H */
