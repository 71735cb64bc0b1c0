/* count.h - what main.c calls in count.c. */
#ifndef WC_COUNT_H
#define WC_COUNT_H

void count_line(const char *s);
void report(const char *name);

#endif
