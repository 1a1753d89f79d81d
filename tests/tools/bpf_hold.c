// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_hold: load a tiny BPF program on a tracepoint and hold it, as a
 * tracing tool would, for the `flytrap status` live test.
 *
 *   bpf_hold SYSTEM:EVENT SECONDS
 *
 * Loads "st_hold" (BPF_PROG_TYPE_TRACEPOINT, returns 0) through raw bpf()
 * calls, opens a perf event on the tracepoint (CPU 0: the program runs on
 * every CPU anyway, the tracepoint calls it whoever fires it) and attaches
 * the program with a BPF link.  Prints "pid PID prog ID" and holds them
 * until stdin reaches end of file, SIGTERM, or SECONDS have passed (so a
 * failed test never leaves it running).  Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static int tracepoint_id(const char *spec)
{
	char path[512], sys[128], ev[256], buf[32];
	int fd, n;

	if (sscanf(spec, "%127[^:]:%255s", sys, ev) != 2)
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", sys, ev);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct perf_event_attr pa;
	struct bpf_prog_info info;
	union bpf_attr a;
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	int tp, prog, pe, link, secs;
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: bpf_hold SYSTEM:EVENT SECONDS\n");
		return 2;
	}
	secs = atoi(argv[2]);
	tp = tracepoint_id(argv[1]);
	if (tp < 0) {
		fprintf(stderr, "bpf_hold: no tracepoint '%s'\n", argv[1]);
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	a.insns = (__u64)(unsigned long)insns;
	a.insn_cnt = 2;
	a.license = (__u64)(unsigned long)"GPL";
	snprintf(a.prog_name, sizeof(a.prog_name), "st_hold");
	prog = sys_bpf(BPF_PROG_LOAD, &a);
	if (prog < 0) {
		fprintf(stderr, "bpf_hold: cannot load the program: %s\n", strerror(errno));
		return 1;
	}
	memset(&pa, 0, sizeof(pa));
	pa.type = PERF_TYPE_TRACEPOINT;
	pa.size = sizeof(pa);
	pa.config = tp;
	pa.sample_period = 1;
	pe = syscall(SYS_perf_event_open, &pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pe < 0) {
		fprintf(stderr, "bpf_hold: cannot open the perf event: %s\n", strerror(errno));
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.target_fd = pe;
	a.link_create.attach_type = BPF_PERF_EVENT;
	link = sys_bpf(BPF_LINK_CREATE, &a);
	if (link < 0 && ioctl(pe, PERF_EVENT_IOC_SET_BPF, prog)) {
		fprintf(stderr, "bpf_hold: cannot attach the program: %s\n", strerror(errno));
		return 1;
	}
	ioctl(pe, PERF_EVENT_IOC_ENABLE, 0);
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = prog;
	a.info.info_len = sizeof(info);
	a.info.info = (__u64)(unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a)) {
		fprintf(stderr, "bpf_hold: cannot read the program's id: %s\n", strerror(errno));
		return 1;
	}
	printf("pid %d prog %u\n", (int)getpid(), info.id);
	fflush(stdout);
	/* until stdin closes (or the time runs out) */
	while (poll(&pfd, 1, secs * 1000) > 0 && read(0, &c, 1) > 0)
		;
	return 0;
}
