/*
 * fuzz_db.c - libFuzzer target for the feedback database reader.  Any
 * input the reader accepts must be canonical and survive the trip through
 * text (oracle.h), both as given and with its checksum repaired; a broken
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

	unsigned char *fixed;

	if (xpo_check_db(data, size, why, sizeof why) == XPO_VIOLATION) {
		fprintf(stderr, "fuzz_db: %s\n", why);
		abort();
	}
	/* Mutations almost never keep the checksum right; repairing it lets
	 * them reach every check behind it. */
	fixed = xpo_fix_checksum(data, size);
	if (fixed != NULL &&
	    xpo_check_db(fixed, size, why, sizeof why) == XPO_VIOLATION) {
		fprintf(stderr, "fuzz_db (checksum repaired): %s\n", why);
		abort();
	}
	free(fixed);
	return 0;
}
