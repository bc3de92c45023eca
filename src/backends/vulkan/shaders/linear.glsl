// 1-D kernels run on a 2-D grid of workgroups (the host splits a long row, since devices may
// cap a grid dimension at 65535); this is the flat invocation index.
int linear_index() {
  return int((gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x) +
             gl_GlobalInvocationID.x);
}
