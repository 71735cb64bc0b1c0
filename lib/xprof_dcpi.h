/*
 * xprof_dcpi.h - the model of a DCPI profile (dcpi(5)), as
 * xp_prof_model() returns it for a profile of format XP_FMT_DCPI.
 *
 * A DCPI profile is an ASCII header (one "keyword value" line each,
 * ended by a "samples" line) followed by little-endian 32-bit sample
 * counts per instruction address of one image, in chunks.  The model
 * keeps the header byte for byte (unknown lines and the padding of the
 * "samples" line included) and the chunks as read.  Every string and
 * array returned here belongs to the model and lives as long as it.
 */
#ifndef XPROF_DCPI_H
#define XPROF_DCPI_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of header line (dcpi(5) says which are required). */
typedef enum {
	XP_DCPI_IMAGE = 0,   /* image <hex id> */
	XP_DCPI_EPOCH,       /* epoch <YYMMDDHHMM | YYYYMMDDHHMMSS> */
	XP_DCPI_PLATFORM,    /* platform <rest of line> */
	XP_DCPI_EVENT,       /* event <rest of line> */
	XP_DCPI_PERIOD,      /* period <decimal> */
	XP_DCPI_TSIZE,       /* tsize <decimal> */
	XP_DCPI_CPUSPEED,    /* cpuspeed <decimal> */
	XP_DCPI_CPUAMASK,    /* cpuamask <hex> */
	XP_DCPI_CPUIMPLV,    /* cpuimplv <decimal> */
	XP_DCPI_CPUCOUNT,    /* cpucount <decimal> */
	XP_DCPI_PATH,        /* path <rest of line> */
	XP_DCPI_TSTART,      /* tstart <hex>: our decision, see dcpi(5) */
	XP_DCPI_VERSION,     /* version <major>.<minor>: likewise */
	XP_DCPI_UNKNOWN,     /* <word> <rest of line>, kept verbatim */
	XP_DCPI_SAMPLES,     /* the terminator, with its padding */
	XP_DCPI_NKINDS
} xp_dcpi_kind;

/* The model (opaque). */
typedef struct xp_dcpi xp_dcpi;

/* One chunk: counts[first .. first + number - 1] are the samples of the
 * addresses tstart + offset .. tstart + offset + number - 1. */
typedef struct {
	uint32_t offset, number;
	size_t first;
} xp_dcpi_chunk;

/* The header's keyword: "image", ...; NULL for UNKNOWN. */
const char *xp_dcpi_kind_name(xp_dcpi_kind k);

/* Header lines in file order, the "samples" line last; text is the line
 * without its newline. */
size_t xp_dcpi_nlines(const xp_dcpi *m);
xp_dcpi_kind xp_dcpi_line(const xp_dcpi *m, size_t i, const char **text,
                          size_t *len);
/* The value of the line of kind k (the bytes after the keyword and its
 * blanks); returns -1 when there is no such line. */
int xp_dcpi_value(const xp_dcpi *m, xp_dcpi_kind k, const char **text,
                  size_t *len);
/* The header exactly as read (through the "samples" line's newline). */
const unsigned char *xp_dcpi_header(const xp_dcpi *m, size_t *len);

uint64_t xp_dcpi_period(const xp_dcpi *m);
uint64_t xp_dcpi_tsize(const xp_dcpi *m);
/* Returns 0 and the tstart value when the header has one, -1 otherwise. */
int xp_dcpi_tstart(const xp_dcpi *m, uint64_t *out);

size_t xp_dcpi_nchunks(const xp_dcpi *m);
void xp_dcpi_get_chunk(const xp_dcpi *m, size_t i, xp_dcpi_chunk *c);
/* Every count of every chunk, in chunk order. */
const uint32_t *xp_dcpi_counts(const xp_dcpi *m, size_t *n);
/* The footer's two values, as they are written: addresses with at least
 * one sample, and the sum of all counts. */
uint32_t xp_dcpi_total_addrs(const xp_dcpi *m);
uint32_t xp_dcpi_total_samples(const xp_dcpi *m);

/* ------------------------------------------------------------------ */
/* The report (what xprof_show prints; dcpi(5), REPORT)                */
/* ------------------------------------------------------------------ */

/* A ranked procedure (line 0) or source line (name is its file). */
typedef struct {
	const char *name;
	uint32_t line;
	uint64_t samples;
} xp_dcpi_hot;

/*
 * xp_prof_report() of a DCPI profile symbolizes it with the options'
 * exe, or the profile's path line (without either it is XP_E_INVAL),
 * through its conversion to feedback, and xp_report_model() returns an
 * xp_dcpi_report.  Procedures and, when the options ask for lines,
 * source lines come ranked by samples, descending, ties by name (file,
 * then line) ascending.
 */
typedef struct xp_dcpi_report xp_dcpi_report;

/* All the profile's samples, and those inside some procedure. */
uint64_t xp_dcpi_report_samples(const xp_dcpi_report *r);
uint64_t xp_dcpi_report_in_procs(const xp_dcpi_report *r);
size_t xp_dcpi_report_nprocs(const xp_dcpi_report *r);
const xp_dcpi_hot *xp_dcpi_report_proc(const xp_dcpi_report *r, size_t i);
/* 0 unless the options asked for lines. */
size_t xp_dcpi_report_nlines(const xp_dcpi_report *r);
const xp_dcpi_hot *xp_dcpi_report_line(const xp_dcpi_report *r, size_t i);

#ifdef __cplusplus
}
#endif

#endif /* XPROF_DCPI_H */
