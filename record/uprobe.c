// SPDX-License-Identifier: GPL-2.0-only
/*
 * --uprobe BINARY:SYMBOL: entry and return probes on user functions, found
 * by glob in the binary's ELF symbol table.  uprobe_events is global, so
 * every probe goes into the group "flytrap_<pid>" and is removed at the end
 * (or by `flytrap reset` when the recorder was killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flytrap.h"
#include "record.h"

#define MAX_PROBED_FUNCS 1000

/* Debian's multiarch library directory name for this build */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#else
#define MULTIARCH "."
#endif
#define MAX_EVENT_NAME 48	/* kernel limit is 64; "__return" must still fit */

struct func {
	char *name;
	uint64_t offset;	/* file offset of the entry */
};

static int cmp_offset(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->name, y->name);
}

int rec_open_regular(const char *path, bool nofollow)
{
	char self[64];
	struct stat st;
	int pfd, fd, e;

	/* O_PATH opens nothing: a device or FIFO at path is never opened for reading */
	pfd = open(path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return -1;
	e = fstat(pfd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
	if (e) {
		close(pfd);
		errno = e;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)	/* no /proc (a chroot): the name, checked again */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	e = errno;
	if (fd >= 0) {
		struct stat now;

		if (fstat(fd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
			close(fd);
			fd = -1;
			e = ESTALE;
		}
	}
	close(pfd);
	errno = e;
	return fd;
}

/* Resolve a command name through $PATH the way a shell would. */
char *rec_find_binary(const char *bin)
{
	char *path, *dir, *save = NULL, *res = NULL, buf[PATH_MAX];

	if (strchr(bin, '/'))
		return realpath(bin, NULL);
	path = getenv("PATH") ? strdup(getenv("PATH")) : strdup("/usr/bin:/bin");
	if (!path)
		return NULL;
	for (dir = strtok_r(path, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, bin);
		if (!access(buf, X_OK)) {
			res = realpath(buf, NULL);
			break;
		}
	}
	free(path);
	/* a bare library name ("libc.so.6"): the usual library directories */
	if (!res && strstr(bin, ".so")) {
		static const char *const libdirs[] = {
			"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib64", "/lib", "/usr/lib",
			"/usr/local/lib",
		};
		size_t i;

		for (i = 0; !res && i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
			snprintf(buf, sizeof(buf), "%s/%s", libdirs[i], bin);
			if (!access(buf, R_OK))
				res = realpath(buf, NULL);
		}
	}
	if (!res)
		errno = ENOENT;
	return res;
}

/* Virtual address → file offset through the PT_LOAD segments. */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Functions of path whose names match glob; prefers .symtab over .dynsym. */
static int list_functions(const char *path, const char *glob, struct func **out, int *nout)
{
	Elf_Scn *scn = NULL, *use = NULL;
	struct func *fv = NULL;
	int fd, nf = 0, err = 0;
	GElf_Shdr sh, use_sh = { 0 };
	Elf *elf = NULL;

	*out = NULL;
	*nout = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = rec_open_regular(path, false);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !use)) {
			use = scn;
			use_sh = sh;
		}
	}
	if (!use) {
		err = -ENODATA;
		goto out;
	}
	{
		Elf_Data *data = elf_getdata(use, NULL);
		size_t i, count;

		if (!data || !use_sh.sh_entsize) {
			err = -EBADMSG;
			goto out;
		}
		count = use_sh.sh_size / use_sh.sh_entsize;
		for (i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t off;
			struct func *tmp;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, use_sh.sh_link, sym.st_name);
			if (!name || !*name || fnmatch(glob, name, 0))
				continue;
			if (vaddr_to_offset(elf, sym.st_value, &off))
				continue;
			tmp = realloc(fv, (size_t)(nf + 1) * sizeof(*fv));
			if (!tmp) {
				err = -ENOMEM;
				goto out;
			}
			fv = tmp;
			fv[nf].name = strdup(name);
			if (!fv[nf].name) {
				err = -ENOMEM;
				goto out;
			}
			fv[nf].offset = off;
			nf++;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (err) {
		while (nf > 0)
			free(fv[--nf].name);
		free(fv);
		return err;
	}
	*out = fv;
	*nout = nf;
	return 0;
}

static int uprobe_write(struct rec_instance *ri, const char *line)
{
	char path[4096];
	size_t len = strlen(line);
	ssize_t r;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", ri->tracing_dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, line, len);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != len)
		err = -EIO;
	close(fd);
	return err;
}

static bool probe_known(struct rec_instance *ri, const char *name)
{
	size_t gl = strlen(ri->uprobe_group);
	int i;

	for (i = 0; i < ri->nuprobes; i++)
		if (!strncmp(ri->uprobes[i], ri->uprobe_group, gl) && ri->uprobes[i][gl] == '/' &&
		    !strcmp(ri->uprobes[i] + gl + 1, name))
			return true;
	return false;
}

/* A tracefs event name: [A-Za-z0-9_], not starting with a digit, unique in our group. */
static void event_name(struct rec_instance *ri, const char *sym, char *out, size_t len)
{
	char base[MAX_EVENT_NAME + 1];
	size_t i, n = 0;
	int k;

	if (sym[0] >= '0' && sym[0] <= '9')
		base[n++] = '_';
	for (i = 0; sym[i] && n < MAX_EVENT_NAME - 4; i++) {
		char c = sym[i];

		base[n++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '_') ? c : '_';
	}
	base[n] = '\0';
	snprintf(out, len, "%s", base);
	for (k = 2; probe_known(ri, out) && k < 1000; k++)
		snprintf(out, len, "%s_%d", base, k);
}

static int remember(struct rec_instance *ri, const char *name)
{
	char **v = realloc(ri->uprobes, (size_t)(ri->nuprobes + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	ri->uprobes = v;
	if (asprintf(&v[ri->nuprobes], "%s/%s", ri->uprobe_group, name) < 0)
		return -ENOMEM;
	ri->nuprobes++;
	return 0;
}

int rec_uprobe_add(struct rec_instance *ri, const char *spec)
{
	char *bin = NULL, *glob, *path = NULL, line[PATH_MAX + 256], name[96], rname[112];
	struct func *fv = NULL;
	int nf = 0, i, err = 0, probed = 0;
	char *colon;

	bin = strdup(spec);
	if (!bin)
		return -ENOMEM;
	colon = strrchr(bin, ':');
	if (!colon || colon == bin || !colon[1]) {
		ft_error("--uprobe '%s': expected BINARY:SYMBOL", spec);
		err = -EINVAL;
		goto out;
	}
	*colon = '\0';
	glob = colon + 1;
	path = rec_find_binary(bin);
	if (!path) {
		err = -errno;
		ft_error("cannot find '%s' for --uprobe: %s", bin, strerror(errno));
		goto out;
	}
	err = list_functions(path, glob, &fv, &nf);
	if (err) {
		ft_error("cannot read the symbols of '%s': %s", path,
			 err == -ENODATA ? "no symbol table" :
			 err == -ENOEXEC ? "not an ELF file" :
			 err == -EINVAL ? "not a regular file" : strerror(-err));
		goto out;
	}
	if (!nf) {
		ft_error("no function of '%s' matches '%s'", path, glob);
		err = -ENOENT;
		goto out;
	}
	if (nf > MAX_PROBED_FUNCS) {
		ft_error("'%s' matches %d functions of '%s'; narrow it (limit %d)",
			 glob, nf, path, MAX_PROBED_FUNCS);
		err = -E2BIG;
		goto out;
	}
	qsort(fv, (size_t)nf, sizeof(*fv), cmp_offset);
	for (i = 0; i < nf; i++) {
		char file[512];

		/* aliases share an address: one probe, or every call counts twice */
		if (i && fv[i].offset == fv[i - 1].offset)
			continue;
		event_name(ri, fv[i].name, name, sizeof(name));
		snprintf(rname, sizeof(rname), "%s__return", name);

		snprintf(line, sizeof(line), "p:%s/%s %s:0x%llx\n", ri->uprobe_group, name, path,
			 (unsigned long long)fv[i].offset);
		err = uprobe_write(ri, line);
		if (err) {
			ft_error("cannot create uprobe on %s:%s: %s", path, fv[i].name, strerror(-err));
			goto out;
		}
		err = remember(ri, name);
		if (err)
			goto out;
		snprintf(line, sizeof(line), "r:%s/%s %s:0x%llx\n", ri->uprobe_group, rname, path,
			 (unsigned long long)fv[i].offset);
		err = uprobe_write(ri, line);
		if (err) {
			ft_error("cannot create return uprobe on %s:%s: %s", path, fv[i].name,
				 strerror(-err));
			goto out;
		}
		err = remember(ri, rname);
		if (err)
			goto out;

		snprintf(file, sizeof(file), "events/%s/%s/enable", ri->uprobe_group, name);
		err = rec_instance_write(ri, file, "1");
		if (!err) {
			snprintf(file, sizeof(file), "events/%s/%s/enable", ri->uprobe_group, rname);
			err = rec_instance_write(ri, file, "1");
		}
		if (err) {
			ft_error("cannot enable uprobe %s/%s: %s", ri->uprobe_group, name, strerror(-err));
			goto out;
		}
		err = rec_instance_track(ri, ri->uprobe_group, name);
		if (!err)
			err = rec_instance_track(ri, ri->uprobe_group, rname);
		if (err)
			goto out;
		ft_info("uprobe %s/%s on %s:%s (offset 0x%llx)", ri->uprobe_group, name, path,
			fv[i].name, (unsigned long long)fv[i].offset);
		probed++;
	}
out:
	for (i = 0; i < nf; i++)
		free(fv[i].name);
	free(fv);
	free(path);
	free(bin);
	return err ? err : probed;
}

int rec_uprobe_remove_all(struct rec_instance *ri)
{
	char line[256];
	int i, k, err = 0, r = 0;

	for (i = ri->nuprobes - 1; i >= 0; i--) {
		snprintf(line, sizeof(line), "-:%s\n", ri->uprobes[i]);
		for (k = 0; k < 50; k++) {
			r = uprobe_write(ri, line);
			if (r != -EBUSY)
				break;
			usleep(20000);
		}
		if (r && r != -ENOENT) {
			ft_error("cannot remove uprobe '%s': %s (run 'flytrap reset')", ri->uprobes[i],
				 strerror(-r));
			if (!err)
				err = r;
		}
		free(ri->uprobes[i]);
	}
	free(ri->uprobes);
	ri->uprobes = NULL;
	ri->nuprobes = 0;
	return err;
}

bool rec_elf_uses_lsan(const char *path)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = rec_open_regular(path, false);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i, count;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			/* defined (static runtime) or undefined (shared runtime) alike */
			for (i = 0; i < count && !found; i++) {
				GElf_Sym sym;
				const char *name;

				if (!gelf_getsym(data, (int)i, &sym))
					break;
				name = elf_strptr(elf, sh.sh_link, sym.st_name);
				found = name && (!strncmp(name, "__lsan_", 7) || !strcmp(name, "__asan_init"));
			}
		} else if (sh.sh_type == SHT_DYNAMIC) {
			for (i = 0; i < count && !found; i++) {
				GElf_Dyn dyn;
				const char *name;

				if (!gelf_getdyn(data, (int)i, &dyn))
					break;
				if (dyn.d_tag != DT_NEEDED)
					continue;
				name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
				found = name && (strstr(name, "libasan") || strstr(name, "liblsan"));
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}
