/*
 * fuzz_text.c - libFuzzer target for the feedback text parser.  Any input
 * the parser accepts must go through the round trips of oracle.h; a
 * broken promise aborts, so that libFuzzer keeps the input.
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

	if (xpo_check_text(data, size, why, sizeof why) == XPO_VIOLATION) {
		fprintf(stderr, "fuzz_text: %s\n", why);
		abort();
	}
	return 0;
}
