/*
 * tests/data/bpf-exec-images.dat's programs: built twice, as exec-first
 * (-DFIRST) and exec-second, -O2 -fomit-frame-pointer.  exec-first works in
 * first_work, then execs exec-second, which works in second_work: one
 * process, two programs, each sample to be named from the one it ran.
 */
#include <unistd.h>
volatile unsigned long sink;
#ifdef FIRST
__attribute__((noinline)) void first_work(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
int main(void)
{
	for (int r = 0; r < 40; r++)
		first_work(1000000);
	execl("./exec-second", "exec-second", (char *)0);
	return 127;
}
#else
__attribute__((noinline)) void second_pad(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink ^= i; }
__attribute__((noinline)) void second_work(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * 3; }
int main(int argc, char **argv)
{
	if (argc > 1)
		second_pad(1);
	for (int r = 0; r < 60; r++)
		second_work(1000000);
	return 0;
}
#endif
