/*
 * rusage.c - runs a command and reports its wall-clock time and peak
 * resident set size, for the benchmark.
 *
 * Usage: rusage [-o file] command [argument...]
 *
 * Writes one line, "<elapsed seconds> <peak RSS in KiB>", to file (or to
 * standard error), after the command ended.  The command's own output is
 * left alone.  The exit status is the command's, 128 + the signal number
 * if a signal ended it, 127 if it could not be started and 2 on a usage
 * or system error.
 *
 * The peak RSS is ru_maxrss of wait4(2) for that one child, so nothing
 * else the caller ran before is mixed in (getrusage(RUSAGE_CHILDREN) would
 * give the largest of all children waited for).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *outname = NULL;
	struct rusage ru;
	double t0, t1;
	FILE *out = stderr;
	pid_t pid;
	int c, status;

	while ((c = getopt(argc, argv, "+o:")) != -1) {
		switch (c) {
		case 'o':
			outname = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;

	t0 = now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "rusage: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rusage: wait4: %s\n", strerror(errno));
			return 2;
		}
	}
	t1 = now();

	if (outname != NULL && (out = fopen(outname, "w")) == NULL) {
		fprintf(stderr, "rusage: %s: %s\n", outname, strerror(errno));
		return 2;
	}
	/* ru_maxrss is in kilobytes (KiB) on Linux. */
	fprintf(out, "%.6f %ld\n", t1 - t0, (long)ru.ru_maxrss);
	if (out != stderr && fclose(out) != 0) {
		fprintf(stderr, "rusage: %s: %s\n", outname, strerror(errno));
		return 2;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);

usage:
	fprintf(stderr, "usage: rusage [-o file] command [argument...]\n");
	return 2;
}
