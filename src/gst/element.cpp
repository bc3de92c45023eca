#include "element.hpp"

#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <string>

#include "frames.hpp"
#include "stream.hpp"
#include "video/scene_cut.hpp"

GST_DEBUG_CATEGORY_STATIC(framecast_debug);
#define GST_CAT_DEFAULT framecast_debug

namespace {

using framecast::Engine;
using framecast::Precision;
using framecast::gst::BufferPtr;
using framecast::gst::FrameConverter;
using framecast::gst::Stream;
using framecast::video::Rational;

// 8-bit formats only: the engine takes 8- or 16-bit RGB, and GstVideoConverter turns the YUV
// ones into RGB with the caps' matrix and range.
#define FRAMECAST_CAPS \
  GST_VIDEO_CAPS_MAKE( \
      "{ RGB, BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR, I420, YV12, NV12 }")

GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(FRAMECAST_CAPS));
GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(FRAMECAST_CAPS));

enum Property {
  PROP_0,
  PROP_FACTOR,
  PROP_SCENE_THRESHOLD,
  PROP_MODEL,
  PROP_BACKEND,
  PROP_DEVICE,
  PROP_PRECISION,
  PROP_LARGE_MOTION,
  PROP_DEDUP,
};

GType precision_get_type() {
  static GType type = 0;
  static const GEnumValue values[] = {
      {int(Precision::automatic),
       "f16 on GPUs that have it, bf16 on CPUs with bfloat16 instructions, else f32", "auto"},
      {int(Precision::f32), "32-bit floats", "f32"},
      {int(Precision::f16), "16-bit floats (GPUs)", "f16"},
      {int(Precision::bf16), "bfloat16 (CPUs with AVX512-BF16 or AMX)", "bf16"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstFramecastPrecision", values));
  return type;
}

struct Settings {
  gint factor_num = 2, factor_den = 1;
  double scene_threshold = framecast::video::default_scene_threshold;  // 0: no detection
  std::string model = "fast", backend = "auto";
  int device = -1;
  Precision precision = Precision::automatic;
  bool large_motion = true;
  bool dedup = false;
};

struct State {
  Settings settings;  // under the object lock: properties are set from any thread
  std::optional<Engine> engine;
  std::optional<FrameConverter> converter;
  GstVideoInfo in{};                     // the input's format, once negotiated
  Rational in_rate, out_rate;            // in_rate 0: unknown (variable)
  std::atomic<GstClockTime> latency{0};  // for latency queries from any thread
  std::optional<Stream> stream;
  BufferPtr reversed;  // in reverse playback, the source frame to pass on as it is
  GstClockTime resume = GST_CLOCK_TIME_NONE;  // where the output continues after a caps change
  std::atomic<GstClockTime> earliest{GST_CLOCK_TIME_NONE};  // from QoS events (another thread)
  guint64 processed = 0, dropped = 0;
  bool warned_order = false;
};

}  // namespace

struct _GstFramecast {
  GstBaseTransform parent;
  State* state;
};

G_DEFINE_TYPE(GstFramecast, gst_framecast, GST_TYPE_BASE_TRANSFORM)

namespace {

Settings settings_of(GstFramecast* self) {
  GST_OBJECT_LOCK(self);
  Settings settings = self->state->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

void post_error(GstFramecast* self, const std::exception& e) {
  GST_ELEMENT_ERROR(self, STREAM, FAILED, ("%s", e.what()), (nullptr));
}

// The source frames held back before their pair's output can be made: the scene-cut
// detector's lookahead, or the next frame; with dedup, each of those may come after the
// most repeats dropped in a row.
int lookahead(const Settings& settings) {
  return (settings.scene_threshold > 0.0 ? framecast::video::SceneCutDetector::span : 1) *
         (settings.dedup ? framecast::video::DedupSettings{}.max_run + 1 : 1);
}

// Whether to skip an interpolated frame: QoS said frames before `earliest` arrive too late.
bool late(GstFramecast* self, GstClockTime pts, GstClockTime duration) {
  GstBaseTransform* trans = GST_BASE_TRANSFORM(self);
  State& state = *self->state;
  ++state.processed;
  const GstClockTime earliest = state.earliest;
  if (!gst_base_transform_is_qos_enabled(trans) || earliest == GST_CLOCK_TIME_NONE) return false;
  const GstClockTime running = gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, pts);
  if (running == GST_CLOCK_TIME_NONE || running > earliest) return false;
  ++state.dropped;
  GstMessage* message = gst_message_new_qos(
      GST_OBJECT(self), FALSE, running,
      gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, pts), pts, duration);
  gst_message_set_qos_stats(message, GST_FORMAT_BUFFERS, state.processed, state.dropped);
  gst_element_post_message(GST_ELEMENT(self), message);
  return true;
}

// Pushes what the current stretch still holds (at EOS, a new segment or new caps) and ends it.
GstFlowReturn drain(GstFramecast* self) {
  State& state = *self->state;
  if (!state.stream) return GST_FLOW_OK;
  GstFlowReturn ret = GST_FLOW_OK;
  try {
    state.stream->finish();
    const Stream::Skip skip = [self](GstClockTime pts, GstClockTime duration) {
      return late(self, pts, duration);
    };
    while (ret == GST_FLOW_OK) {
      BufferPtr buffer = state.stream->next(skip);
      if (!buffer) break;
      ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buffer.release());
    }
    state.resume = state.stream->resume_time();
  } catch (const std::exception& e) {
    post_error(self, e);
    ret = GST_FLOW_ERROR;
  }
  state.stream.reset();
  return ret;
}

void forget_stream(GstFramecast* self) {
  State& state = *self->state;
  state.stream.reset();
  state.reversed.reset();
  state.resume = GST_CLOCK_TIME_NONE;
  state.earliest = GST_CLOCK_TIME_NONE;
}

Rational rate_of(const GstVideoInfo& info) {
  return info.fps_n > 0 && info.fps_d > 0 ? Rational(info.fps_n, info.fps_d) : Rational(0);
}

// The output's rate is free (a range) whatever the input's: fixate_caps prefers the input's
// times the factor, and a downstream filter can ask for any rate.
GstCaps* transform_caps(GstBaseTransform* /*trans*/, GstPadDirection direction, GstCaps* caps,
                        GstCaps* filter) {
  GstCaps* result = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstStructure* structure = gst_structure_copy(gst_caps_get_structure(caps, i));
    // Input may be of variable rate (0/1); output never is.
    if (direction == GST_PAD_SRC)
      gst_structure_set(structure, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1,
                        nullptr);
    else
      gst_structure_set(structure, "framerate", GST_TYPE_FRACTION_RANGE, 1, G_MAXINT, G_MAXINT, 1,
                        nullptr);
    result = gst_caps_merge_structure_full(result, structure,
                                           gst_caps_features_copy(gst_caps_get_features(caps, i)));
  }
  if (filter) {
    GstCaps* filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(result);
    result = filtered;
  }
  return result;
}

GstCaps* fixate_caps(GstBaseTransform* trans, GstPadDirection direction, GstCaps* caps,
                     GstCaps* othercaps) {
  GstFramecast* self = GST_FRAMECAST(trans);
  if (direction == GST_PAD_SINK) {
    othercaps = gst_caps_make_writable(gst_caps_truncate(othercaps));
    GstStructure* out = gst_caps_get_structure(othercaps, 0);
    gint num = 0, den = 1;
    gst_structure_get_fraction(gst_caps_get_structure(caps, 0), "framerate", &num, &den);
    if (!gst_value_is_fixed(gst_structure_get_value(out, "framerate"))) {
      if (num == 0) {
        GST_ELEMENT_ERROR(
            self, CORE, NEGOTIATION,
            ("the input's frame rate is unknown (variable), so the factor cannot apply: "
             "ask for a rate after the element, e.g. framecast ! video/x-raw,framerate=60/1"),
            (nullptr));
        gst_caps_unref(othercaps);
        return gst_caps_new_empty();
      }
      const Settings settings = settings_of(self);
      gst_util_fraction_multiply(num, den, settings.factor_num, settings.factor_den, &num, &den);
      gst_structure_fixate_field_nearest_fraction(out, "framerate", num, den);
    }
  }
  return GST_BASE_TRANSFORM_CLASS(gst_framecast_parent_class)
      ->fixate_caps(trans, direction, caps, othercaps);
}

gboolean set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps* outcaps) {
  GstFramecast* self = GST_FRAMECAST(trans);
  State& state = *self->state;
  GstVideoInfo in, out;
  if (!gst_video_info_from_caps(&in, incaps) || !gst_video_info_from_caps(&out, outcaps))
    return FALSE;
  if (state.converter && gst_video_info_is_equal(&in, &state.in) && rate_of(out) == state.out_rate)
    return TRUE;  // the same caps again: the stream goes on
  // A new output rate (downstream renegotiated) starts a new stretch on the new grid.
  if (drain(self) != GST_FLOW_OK) return FALSE;
  state.in = in;
  try {
    state.converter.emplace(in);
  } catch (const std::exception& e) {
    post_error(self, e);
    return FALSE;
  }
  state.in_rate = rate_of(in);
  state.out_rate = rate_of(out);
  // Interpolating needs the next source frame, and cut decisions more: that much latency.
  const GstClockTime latency =
      in.fps_n > 0 ? gst_util_uint64_scale(guint64(lookahead(settings_of(self))) * GST_SECOND,
                                           guint64(in.fps_d), guint64(in.fps_n))
                   : 0;
  if (state.latency.exchange(latency) != latency)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  return state.out_rate > Rational(0);
}

gboolean query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query) {
  GstFramecast* self = GST_FRAMECAST(trans);
  if (!GST_BASE_TRANSFORM_CLASS(gst_framecast_parent_class)->query(trans, direction, query))
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
    gboolean live = FALSE;
    GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
    gst_query_parse_latency(query, &live, &min, &max);
    const GstClockTime ours = self->state->latency;
    gst_query_set_latency(query, live, min + ours, max == GST_CLOCK_TIME_NONE ? max : max + ours);
  }
  return TRUE;
}

gboolean sink_event(GstBaseTransform* trans, GstEvent* event) {
  GstFramecast* self = GST_FRAMECAST(trans);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_STOP:
      forget_stream(self);
      break;
    case GST_EVENT_SEGMENT:
      // The output grid restarts at the new segment's start.
      drain(self);
      forget_stream(self);
      break;
    case GST_EVENT_CAPS: {
      // What is held is pushed in the old format before the new caps go downstream.
      GstCaps* caps = nullptr;
      gst_event_parse_caps(event, &caps);
      GstCaps* current = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans));
      if (current && !gst_caps_is_equal(current, caps)) drain(self);
      if (current) gst_caps_unref(current);
      break;
    }
    case GST_EVENT_EOS:
      // The last source frame and its repeats up to its end go out before EOS.
      drain(self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_framecast_parent_class)->sink_event(trans, event);
}

gboolean src_event(GstBaseTransform* trans, GstEvent* event) {
  GstFramecast* self = GST_FRAMECAST(trans);
  if (GST_EVENT_TYPE(event) != GST_EVENT_QOS)
    return GST_BASE_TRANSFORM_CLASS(gst_framecast_parent_class)->src_event(trans, event);
  // Handled here, not by GstBaseTransform, which would drop late source frames: this element
  // drops interpolated ones instead. A late sink catches up by about twice its lateness.
  GstQOSType type;
  gdouble proportion;
  GstClockTimeDiff diff;
  GstClockTime timestamp;
  gst_event_parse_qos(event, &type, &proportion, &diff, &timestamp);
  if (GST_CLOCK_TIME_IS_VALID(timestamp)) {
    const GstClockTimeDiff ahead = diff > 0 ? 2 * diff : diff;
    self->state->earliest =
        GstClockTime(std::max<GstClockTimeDiff>(0, GstClockTimeDiff(timestamp) + ahead));
  }
  return gst_pad_push_event(GST_BASE_TRANSFORM_SINK_PAD(trans), event);
}

GstFlowReturn submit_input_buffer(GstBaseTransform* trans, gboolean is_discont, GstBuffer* input) {
  GstFramecast* self = GST_FRAMECAST(trans);
  State& state = *self->state;
  // The parent negotiates and keeps the buffer in queued_buf.
  const GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(gst_framecast_parent_class)
                                ->submit_input_buffer(trans, is_discont, input);
  if (ret != GST_FLOW_OK) return ret;
  BufferPtr buffer(trans->queued_buf);
  trans->queued_buf = nullptr;
  // Reverse playback: timestamps decrease, and the frames pass through as they are.
  if (trans->segment.rate < 0.0) {
    state.reversed = std::move(buffer);
    return GST_FLOW_OK;
  }
  if (!GST_BUFFER_PTS_IS_VALID(buffer.get())) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("a video frame without a timestamp"), (nullptr));
    return GST_FLOW_ERROR;
  }
  try {
    if (!state.stream) {
      const Settings settings = settings_of(self);
      const GstClockTime origin =
          GST_CLOCK_TIME_IS_VALID(state.resume) ? state.resume : trans->segment.start;
      // GStreamer's timestamps are nanoseconds, but demuxers pass on their containers'
      // rounding (Matroska's milliseconds): a source frame that near an output time is at it.
      const Rational tolerance = framecast::video::snap_tolerance(
          Rational(1, 1000), state.in_rate > Rational(0) ? state.in_rate : state.out_rate);
      state.stream.emplace(
          *state.engine, *state.converter, state.out_rate, origin, tolerance,
          settings.scene_threshold > 0.0 ? std::optional(settings.scene_threshold) : std::nullopt,
          settings.dedup ? std::optional(framecast::video::DedupSettings{}) : std::nullopt);
    }
    const GstClockTime duration = GST_BUFFER_DURATION(buffer.get());
    const Rational seconds = GST_CLOCK_TIME_IS_VALID(duration)
                                 ? Rational(std::int64_t(duration), GST_SECOND)
                             : state.in_rate > Rational(0) ? Rational(1) / state.in_rate
                                                           : Rational(0);
    const GstClockTime pts = GST_BUFFER_PTS(buffer.get());
    if (!state.stream->add(std::move(buffer), seconds) && !state.warned_order) {
      GST_ELEMENT_WARNING(self, STREAM, FAILED,
                          ("a frame at %" GST_TIME_FORMAT
                           " does not follow its predecessor in time; such frames are dropped",
                           GST_TIME_ARGS(pts)),
                          (nullptr));
      state.warned_order = true;
    }
  } catch (const std::exception& e) {
    post_error(self, e);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

GstFlowReturn generate_output(GstBaseTransform* trans, GstBuffer** output) {
  GstFramecast* self = GST_FRAMECAST(trans);
  *output = self->state->reversed.release();
  if (*output || !self->state->stream) return GST_FLOW_OK;
  try {
    *output = self->state->stream
                  ->next([self](GstClockTime pts, GstClockTime duration) {
                    return late(self, pts, duration);
                  })
                  .release();
  } catch (const std::exception& e) {
    post_error(self, e);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

gboolean start(GstBaseTransform* trans) {
  GstFramecast* self = GST_FRAMECAST(trans);
  const Settings settings = settings_of(self);
  try {
    framecast::RuntimeOptions options;
    options.precision = settings.precision;
    options.large_motion = settings.large_motion;
    Engine& engine = self->state->engine.emplace(
        framecast::Model::load(framecast::resolve_model(settings.model)),
        framecast::BackendRequest{settings.backend, settings.device}, options);
    if (!engine.backend_warning().empty())
      GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s", engine.backend_warning().c_str()),
                          (nullptr));
    GST_INFO_OBJECT(self, "model %s on the %s backend", settings.model.c_str(),
                    engine.backend_name().c_str());
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("%s", e.what()), (nullptr));
    return FALSE;
  }
  return TRUE;
}

gboolean stop(GstBaseTransform* trans) {
  GstFramecast* self = GST_FRAMECAST(trans);
  State& state = *self->state;
  forget_stream(self);
  state.converter.reset();
  state.engine.reset();
  state.latency = 0;
  state.processed = state.dropped = 0;
  state.warned_order = false;
  return TRUE;
}

}  // namespace

void gst_framecast_init(GstFramecast* self) {
  self->state = new State;
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}

static void gst_framecast_finalize(GObject* object) {
  delete GST_FRAMECAST(object)->state;
  G_OBJECT_CLASS(gst_framecast_parent_class)->finalize(object);
}

static void gst_framecast_set_property(GObject* object, guint id, const GValue* value,
                                       GParamSpec* spec) {
  GstFramecast* self = GST_FRAMECAST(object);
  GST_OBJECT_LOCK(self);
  Settings& settings = self->state->settings;
  switch (id) {
    case PROP_FACTOR:
      settings.factor_num = gst_value_get_fraction_numerator(value);
      settings.factor_den = gst_value_get_fraction_denominator(value);
      break;
    case PROP_SCENE_THRESHOLD:
      settings.scene_threshold = g_value_get_double(value);
      break;
    case PROP_MODEL:
      settings.model = g_value_get_string(value) ? g_value_get_string(value) : "fast";
      break;
    case PROP_BACKEND:
      settings.backend = g_value_get_string(value) ? g_value_get_string(value) : "auto";
      break;
    case PROP_DEVICE:
      settings.device = g_value_get_int(value);
      break;
    case PROP_PRECISION:
      settings.precision = Precision(g_value_get_enum(value));
      break;
    case PROP_LARGE_MOTION:
      settings.large_motion = g_value_get_boolean(value);
      break;
    case PROP_DEDUP:
      settings.dedup = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
  // A new factor applies at once: the output caps are negotiated again.
  if (id == PROP_FACTOR) gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
}

static void gst_framecast_get_property(GObject* object, guint id, GValue* value, GParamSpec* spec) {
  GstFramecast* self = GST_FRAMECAST(object);
  GST_OBJECT_LOCK(self);
  const Settings& settings = self->state->settings;
  switch (id) {
    case PROP_FACTOR:
      gst_value_set_fraction(value, settings.factor_num, settings.factor_den);
      break;
    case PROP_SCENE_THRESHOLD:
      g_value_set_double(value, settings.scene_threshold);
      break;
    case PROP_MODEL:
      g_value_set_string(value, settings.model.c_str());
      break;
    case PROP_BACKEND:
      g_value_set_string(value, settings.backend.c_str());
      break;
    case PROP_DEVICE:
      g_value_set_int(value, settings.device);
      break;
    case PROP_PRECISION:
      g_value_set_enum(value, int(settings.precision));
      break;
    case PROP_LARGE_MOTION:
      g_value_set_boolean(value, settings.large_motion);
      break;
    case PROP_DEDUP:
      g_value_set_boolean(value, settings.dedup);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void gst_framecast_class_init(GstFramecastClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  object_class->finalize = gst_framecast_finalize;
  object_class->set_property = gst_framecast_set_property;
  object_class->get_property = gst_framecast_get_property;

  constexpr auto playing =
      GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  // The engine's settings apply when the element starts (READY to PAUSED).
  constexpr auto ready =
      GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  g_object_class_install_property(
      object_class, PROP_FACTOR,
      gst_param_spec_fraction(
          "factor", "Factor",
          "The output rate as a multiple of the input's, unless downstream caps ask for a rate", 1,
          1, 64, 1, 2, 1, playing));
  g_object_class_install_property(
      object_class, PROP_SCENE_THRESHOLD,
      g_param_spec_double(
          "scene-threshold", "Scene threshold",
          "Scene-cut score above which no frame is blended across a change of picture (the frame "
          "before it is repeated); 0 turns detection and its 3-frame lookahead off",
          0.0, 1.0, framecast::video::default_scene_threshold, playing));
  g_object_class_install_property(
      object_class, PROP_MODEL,
      g_param_spec_string("model", "Model", "A model file or a shipped model: fast, quality, slim",
                          "fast", ready));
  g_object_class_install_property(
      object_class, PROP_BACKEND,
      g_param_spec_string("backend", "Backend", "auto, cpu, cpu-reference or vulkan", "auto",
                          ready));
  g_object_class_install_property(
      object_class, PROP_DEVICE,
      g_param_spec_int("device", "Device", "The GPU's index (framecast info); -1 picks one", -1,
                       G_MAXINT, -1, ready));
  g_object_class_install_property(
      object_class, PROP_PRECISION,
      g_param_spec_enum("precision", "Precision", "Storage of activations and weights",
                        precision_get_type(), int(Precision::automatic), ready));
  g_object_class_install_property(
      object_class, PROP_LARGE_MOTION,
      g_param_spec_boolean(
          "large-motion", "Large motion",
          "Also estimate the flow at half resolution, for motion beyond ~50 pixels", TRUE, ready));
  g_object_class_install_property(
      object_class, PROP_DEDUP,
      g_param_spec_boolean(
          "dedup", "Dedup",
          "Drop frames that repeat the previous picture (animation on twos or threes, low-rate "
          "captures) and interpolate across the motion; the latency grows to match",
          FALSE, ready));

  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "Frame interpolation", "Filter/Effect/Video",
      "Raises the frame rate with frames synthesized between frames by "
      "Framecast's learned optical flow",
      "Framecast");
  gst_type_mark_as_plugin_api(precision_get_type(), GstPluginAPIFlags(0));

  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->transform_caps = transform_caps;
  trans_class->fixate_caps = fixate_caps;
  trans_class->set_caps = set_caps;
  trans_class->query = query;
  trans_class->sink_event = sink_event;
  trans_class->src_event = src_event;
  trans_class->submit_input_buffer = submit_input_buffer;
  trans_class->generate_output = generate_output;
}

gboolean gst_framecast_register(GstPlugin* plugin) {
  GST_DEBUG_CATEGORY_INIT(framecast_debug, "framecast", 0, "Framecast frame interpolation");
  return gst_element_register(plugin, "framecast", GST_RANK_NONE, GST_TYPE_FRAMECAST);
}
