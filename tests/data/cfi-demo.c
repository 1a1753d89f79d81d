/* tests/data/bpf-symbols-cfi.dat's program: no frame pointers, a 1:3 split */
volatile unsigned long sink;
__attribute__((noinline)) void leaf(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void light(unsigned long n) { leaf(n); sink++; }
__attribute__((noinline)) void heavy(unsigned long n) { leaf(3 * n); sink++; }
int main(void) { for (int r = 0; r < 90; r++) { light(1000000); heavy(1000000); } return 0; }
