// A launch whose <<< has no >>>: tessera-cc names the line.
__global__ void k(int* v) { v[0] = 1; }

int main() {
  k<<<1, 32(nullptr);
  return 0;
}
