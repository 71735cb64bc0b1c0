/* util.h - the character tests of the word counter of the xprof demo. */
#ifndef WC_UTIL_H
#define WC_UTIL_H
static inline int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * The compiler made is_space a procedure of its own in count.o (a COMDAT
 * one, as the profile's PROGRAM section says) and inlined word_end into
 * count_line, so the profile maps one block of count_line to line 23 of
 * this header.  word_end(prev, c) is 1 when c is the first space after
 * a word:
 *
 *   prev  c      word_end
 *   'a'   ' '    1
 *   ' '   ' '    0
 */
static inline int word_end(int prev, int c)
{
	return is_space(c) &&
	       !is_space(prev);
}

#endif
