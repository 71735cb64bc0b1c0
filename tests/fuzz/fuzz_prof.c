/*
 * fuzz_prof.c - libFuzzer target for the readers of the foreign formats
 * (every module of lib/modules.list, binary and text): every
 * accepted input must survive the round trips of oracle.h; a broken
 * promise aborts, so that libFuzzer keeps the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];

	if (xpo_check_prof(data, size, why, sizeof why) == XPO_VIOLATION) {
		fprintf(stderr, "fuzz_prof: %s\n", why);
		abort();
	}
	return 0;
}
