/* count.c - counting lines, words and characters for the word counter
 * of the xprof demo. */
#include <stdio.h>

#include "count.h"
#include "util.h"

static unsigned long lines, words, chars;

/*
 * One line of input, newline included.  A word ends where a space
 * follows a character that is not one (word_end in util.h, which the
 * compiler inlines here), so a line's last word ends at its newline.
 *
 * Every block of this function ran once per line, but the loop's, which
 * ran once per character.
 */
/* (count_line and report are the profile's count.o.) */

void count_line(const char *s)
{
	for (int prev = ' '; *s != '\0'; prev = *s++) {
		chars++;
		words += word_end(prev, *s);
	}
	/* fgets() keeps the newline, so each call is one line. */
	lines++;
}

/* Prints the counts, as wc(1) does without options. */
void report(const char *name)
{
	(void)name;
	printf("%7lu %7lu %7lu\n", lines, words, chars);
}
