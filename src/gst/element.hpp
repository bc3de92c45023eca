// The GStreamer element `framecast`: raises a raw video stream's frame rate by a factor, or to
// the rate downstream asks for, with frames synthesized by the engine (README: "Smooth
// playback with GStreamer").
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_FRAMECAST (gst_framecast_get_type())
G_DECLARE_FINAL_TYPE(GstFramecast, gst_framecast, GST, FRAMECAST, GstBaseTransform)

// Registers the element with `plugin`; null registers it in the process only (tests).
gboolean gst_framecast_register(GstPlugin* plugin);

G_END_DECLS
