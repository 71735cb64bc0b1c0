/*
 * show/manifest.c - xprof_show --manifest: the manifest of a merged
 * profile (xprof_db(5), MANIFEST), as text or JSON.  The library reads
 * and checks it (xp_manifest_open()); this file only prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "tool.h"
#include "xprof_manifest.h"

/* The shortest %g text of v that reads back to v. */
static const char *fmt_weight(char *buf, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, TOOL_FMTLEN, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/* "name=value name=value", malloc'd (NULL when out of memory). */
static char *fmt_totals(const xp_manifest_totals *t)
{
	size_t n = 1;
	char *s, *p;

	for (size_t i = 0; i < t->n; i++)
		n += strlen(t->names[i]) + 24;
	if ((s = p = malloc(n)) == NULL)
		return NULL;
	*p = 0;
	for (size_t i = 0; i < t->n; i++)
		p += sprintf(p, "%s%s=%" PRIu64, i ? " " : "", t->names[i],
		             t->values[i]);
	return s;
}

static int print_inputs(FILE *f, const xp_manifest *man)
{
	tool_table tb;
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN], b3[TOOL_FMTLEN];
	int failed = 0;

	tool_tab_init(&tb, 6, 3);
	tool_tab_row(&tb, (const char *const[]){ "size", "weight", "crc32c",
	                                         "format", "totals", "path" });
	for (size_t i = 0; i < xp_manifest_n_inputs(man); i++) {
		xp_manifest_input in;
		char *tot;

		xp_manifest_get_input(man, i, &in);
		if ((tot = fmt_totals(&in.totals)) == NULL) {
			failed = 1;
			break;
		}
		snprintf(b3, sizeof b3, "%08" PRIx32, in.crc32c);
		tool_tab_row(&tb, (const char *const[]){
			tool_fmt_u64(b1, in.size), fmt_weight(b2, in.weight), b3,
			in.format, tot, in.path });
		free(tot);
	}
	if (!failed && tool_tab_print(&tb, f) != 0)
		failed = 1;
	tool_tab_free(&tb);
	return failed ? -1 : 0;
}

static int print_formats(FILE *f, const xp_manifest *man)
{
	tool_table tb;
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN];
	int failed = 0;

	tool_tab_init(&tb, 4, 2);
	tool_tab_row(&tb, (const char *const[]){ "inputs", "bytes", "format",
	                                         "totals" });
	for (size_t i = 0; i < xp_manifest_n_formats(man); i++) {
		xp_manifest_format fm;
		char *tot;

		xp_manifest_get_format(man, i, &fm);
		if ((tot = fmt_totals(&fm.totals)) == NULL) {
			failed = 1;
			break;
		}
		tool_tab_row(&tb, (const char *const[]){
			tool_fmt_u64(b1, fm.inputs), tool_fmt_u64(b2, fm.bytes),
			fm.format, tot });
		free(tot);
	}
	if (!failed && tool_tab_print(&tb, f) != 0)
		failed = 1;
	tool_tab_free(&tb);
	return failed ? -1 : 0;
}

static int print_text(FILE *f, const char *file, const xp_manifest *man)
{
	uint64_t size, inputs, bytes, fp;
	uint32_t crc;
	const char *name, *value;

	fprintf(f, "manifest of: %s\n", file);
	if (xp_manifest_database(man, &size, &crc))
		fprintf(f, "database: %" PRIu64 " bytes, CRC-32C %08" PRIx32
		        "\n", size, crc);
	else
		fputs("database: none (written alone)\n", f);
	fprintf(f, "tool: %s\n", xp_manifest_tool(man));
	fputs("options:", f);
	for (size_t i = 0; i < xp_manifest_n_options(man); i++) {
		xp_manifest_get_option(man, i, &name, &value);
		fprintf(f, " %s=%s", name, value);
	}
	fputc('\n', f);
	if (xp_manifest_summary(man, &inputs, &bytes, &fp)) {
		fprintf(f, "inputs: %" PRIu64 " (summarized)\nbytes: %" PRIu64
		        "\nfingerprint: %016" PRIx64 "\n\n", inputs, bytes, fp);
		return print_formats(f, man);
	}
	fprintf(f, "inputs: %zu\n\n", xp_manifest_n_inputs(man));
	return print_inputs(f, man);
}

static void json_totals(FILE *f, const xp_manifest_totals *t)
{
	fputs("{", f);
	for (size_t i = 0; i < t->n; i++) {
		fputs(i ? ", " : "", f);
		tool_json_str(f, t->names[i]);
		fprintf(f, ": %" PRIu64, t->values[i]);
	}
	fputs("}", f);
}

static void print_json(FILE *f, const char *file, const xp_manifest *man)
{
	uint64_t size, inputs, bytes, fp;
	uint32_t crc;
	const char *name, *value;
	char b[TOOL_FMTLEN];

	fputs("{\n  \"manifest_of\": ", f);
	tool_json_str(f, file);
	if (xp_manifest_database(man, &size, &crc))
		fprintf(f, ",\n  \"database\": {\"size\": %" PRIu64
		        ", \"crc32c\": \"%08" PRIx32 "\"}", size, crc);
	else
		fputs(",\n  \"database\": null", f);
	fputs(",\n  \"tool\": ", f);
	tool_json_str(f, xp_manifest_tool(man));
	fputs(",\n  \"options\": {", f);
	for (size_t i = 0; i < xp_manifest_n_options(man); i++) {
		xp_manifest_get_option(man, i, &name, &value);
		fputs(i ? ", " : "", f);
		tool_json_str(f, name);
		fputs(": ", f);
		tool_json_str(f, value);
	}
	fputs("},\n  \"inputs\": [", f);
	for (size_t i = 0; i < xp_manifest_n_inputs(man); i++) {
		xp_manifest_input in;
		xp_manifest_get_input(man, i, &in);
		fputs(i ? ",\n    {\"path\": " : "\n    {\"path\": ", f);
		tool_json_str(f, in.path);
		fprintf(f, ", \"size\": %" PRIu64 ", \"crc32c\": \"%08" PRIx32
		        "\", \"weight\": %s, \"format\": ", in.size, in.crc32c,
		        fmt_weight(b, in.weight));
		tool_json_str(f, in.format);
		fputs(", \"totals\": ", f);
		json_totals(f, &in.totals);
		fputs("}", f);
	}
	fputs(xp_manifest_n_inputs(man) ? "\n  ]" : "]", f);
	if (!xp_manifest_summary(man, &inputs, &bytes, &fp)) {
		fputs(",\n  \"summary\": null\n}\n", f);
		return;
	}
	fprintf(f, ",\n  \"summary\": {\"inputs\": %" PRIu64 ", \"bytes\": %"
	        PRIu64 ", \"fingerprint\": \"%016" PRIx64 "\", \"formats\": [",
	        inputs, bytes, fp);
	for (size_t i = 0; i < xp_manifest_n_formats(man); i++) {
		xp_manifest_format fm;
		xp_manifest_get_format(man, i, &fm);
		fputs(i ? ",\n    {\"format\": " : "\n    {\"format\": ", f);
		tool_json_str(f, fm.format);
		fprintf(f, ", \"inputs\": %" PRIu64 ", \"bytes\": %" PRIu64
		        ", \"totals\": ", fm.inputs, fm.bytes);
		json_totals(f, &fm.totals);
		fputs("}", f);
	}
	fputs("\n  ]}\n}\n", f);
}

int show_manifest(const char *prog, const char *file, int json)
{
	xp_diags *d = xp_diags_new(0);
	xp_manifest *man = NULL;
	xp_err err = d ? xp_manifest_open(file, &man, d) : XP_E_NOMEM;
	int status = 2;

	tool_print_diags(prog, d, err, file);
	xp_diags_free(d);
	if (err != XP_E_OK)
		return 2;
	if (json) {
		print_json(stdout, file, man);
		status = 0;
	} else if (print_text(stdout, file, man) == 0) {
		status = 0;
	} else {
		fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
	}
	xp_manifest_free(man);
	return status;
}
