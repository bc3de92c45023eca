// Each subcommand registers itself on the application; its callback runs when parsed.
#pragma once

#include <CLI/CLI.hpp>

namespace framecast::cli {

void add_pair_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_tune_command(CLI::App& app);  // Vulkan conv autotuning
void add_interpolate_command(CLI::App& app);  // with FRAMECAST_HAVE_VIDEO
void add_plan_command(CLI::App& app);         // with FRAMECAST_HAVE_VIDEO

}  // namespace framecast::cli
