// The symbolizer's sample program (symbolizer_test.cpp): built by tessera-cc
// with its default -g. The test finds the lines marked LINE: below by their
// text, so editing this file keeps it valid.
#include <tessera.h>

volatile int sink;

static inline int square(int x) {
  return x * x;  // LINE: square
}

__attribute__((noinline)) int count_down(int n) {
  int total = 0;
  while (n > 0) {
    total += square(n);  // LINE: loop body
    n--;
  }
  return total;
}

int main(void) {
  sink = count_down(sink + 7);  // LINE: call
  return sink == 140 ? 0 : 1;
}
