/*
 * oracle.h - the round-trip checks shared by the fuzz targets and the
 * corpus replay driver.
 *
 * Each check runs one input through a reader of libxprof.  An input the
 * reader rejects must leave no profile behind and must be explained by
 * at least one diagnostic.  An input it accepts must survive the round
 * trips that xprof_atob and xprof_btoa promise, byte for byte.
 */
#ifndef XP_FUZZ_ORACLE_H
#define XP_FUZZ_ORACLE_H

#include <stddef.h>

typedef enum {
	XPO_REJECTED = 0, /* the reader refused the input, correctly */
	XPO_ACCEPTED = 1, /* accepted, and every round trip held */
	XPO_VIOLATION = 2 /* a promise was broken; why[] tells which */
} xpo_result;

/*
 * Feedback text: text -> profile -> canonical text -> profile; the second
 * text must equal the first, both profiles must give identical database
 * bytes, that database must open and give the same text again, the
 * parser's slow path must agree with its fast path, the parse on three
 * threads with the parse on one (the same database, or the same error
 * and diagnostics), and format recognition must call the input text.
 */
xpo_result xpo_check_text(const void *buf, size_t len, char *why,
                          size_t whylen);

/*
 * Feedback database: database -> profile -> database must give the input
 * bytes back, and so must database -> text -> profile -> database;
 * format recognition must call the input a database.
 */
xpo_result xpo_check_db(const void *buf, size_t len, char *why,
                        size_t whylen);

/*
 * A profile of a foreign format (gmon.out, CPU, DCPI, mpatrol; binary or
 * text): a binary input must give its own bytes back, its text form must
 * be recognised as such and reopen to the same binary bytes and the same
 * text.  Inputs of no foreign format are XPO_REJECTED at once.
 */
xpo_result xpo_check_prof(const void *buf, size_t len, char *why,
                          size_t whylen);

/*
 * A copy of a would-be database with its checksum field set to the
 * checksum of its bytes, so that mutated inputs reach the checks behind
 * the checksum.  Returns NULL when the input is too short to have the
 * field, or out of memory; the caller frees the copy.
 */
unsigned char *xpo_fix_checksum(const void *buf, size_t len);

#endif /* XP_FUZZ_ORACLE_H */
