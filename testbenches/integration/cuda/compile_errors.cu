// Launches that must not compile; each case is one -D.
#ifdef BAD_STD_HEADER
#include <vector>
#endif
#ifdef BAD_GRID_GROUP
#include <cooperative_groups.h>
#endif
__global__ void k2(float* y, int n) {
  if ((int)threadIdx.x < n) y[threadIdx.x] = 1.0f;
}
struct Heavy {
  Heavy() {}
  Heavy(const Heavy&) {}
  int v;
};
__global__ void takes_heavy(Heavy) {}
struct Huge {
  char bytes[5000];
};
__global__ void takes_huge(Huge) {}

int main() {
  float* y = nullptr;
  int* wrong = nullptr;
  (void)y;
  (void)wrong;
#ifdef BAD_COUNT
  k2<<<1, 32>>>(y);
#endif
#ifdef BAD_TYPE
  k2<<<1, 32>>>(wrong, 4);
#endif
#ifdef BAD_NOT_COPYABLE
  takes_heavy<<<1, 1>>>(Heavy());
#endif
#ifdef BAD_TOO_BIG
  takes_huge<<<1, 1>>>(Huge());
#endif
  return 0;
}
#ifdef BAD_GRID_GROUP
__global__ void grid_sync() { cooperative_groups::this_grid(); }
#endif
