// libgstframecast.so: the plugin that holds the element.
#include "element.hpp"

// GST_PLUGIN_DEFINE takes the source module's name from PACKAGE, as autotools would define it.
#define PACKAGE "framecast"

namespace {

gboolean plugin_init(GstPlugin* plugin) { return gst_framecast_register(plugin); }

}  // namespace

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, framecast,
                  "Frame-rate interpolation with Framecast's learned optical flow", plugin_init,
                  FRAMECAST_VERSION, GST_LICENSE_UNKNOWN, "framecast", "Framecast")
