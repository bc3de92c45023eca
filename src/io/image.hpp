// Still images: PNG (8 or 16 bits per sample) and JPEG in, PNG out.
#pragma once

#include <filesystem>
#include <functional>

#include "framecast/frame.hpp"

namespace framecast::io {

// Reads a PNG or JPEG (detected from the content) as RGB; 16-bit PNGs stay 16-bit. A pipe or
// FIFO is read whole first, polling `cancelled` while it waits. Throws Error(io) for missing or
// unreadable files, Error(unsupported) for other formats and sizes beyond 32768, and
// Error(cancelled) when `cancelled` said so.
Frame read_image(const std::filesystem::path& path, const std::function<bool()>& cancelled = {});

// Writes an RGB PNG at the frame's depth straight to `path` (callers that write several
// files use AtomicFile themselves). Throws Error(io) (unwritable folder, disk full).
void encode_png(const std::filesystem::path& path, const Frame& frame);

// Writes an RGB PNG at the frame's depth, atomically: the destination appears complete or
// not at all. Throws Error(io) (unwritable folder, disk full).
void write_png(const std::filesystem::path& path, const Frame& frame);

}  // namespace framecast::io
