/*
 * pprof_names.c - unit tests of google-pprof's naming rules
 * (lib/cpuprof/names.c): ShortFunctionName, whose expected values are
 * what pprof's own Perl code gives for the same strings, and the table
 * of routines built from the symbols of a real executable, whose
 * addresses are what nm -n prints for it.
 */
#include <stdlib.h>

#include "cpuprof/cpuprof.h"
#include "unit.h"

#define RD "../shared/realdata/"

static const char *const short_cases[][2] = {
	{"fib", "fib"},
	{"fib<0000000000001149>", "fib"},
	{"std::vector<int, std::allocator<int> >::size() const",
	 "std::vector::size"},
	{"shapes::Grid<long>::operator+=(shapes::Grid<long> const&)",
	 "shapes::Grid::operator+="},
	{"CpuProfiler::~CpuProfiler()", "CpuProfiler::~CpuProfiler"},
	{"__cxa_finalize@@GLIBC_2.2.5<000000000003df40>",
	 "__cxa_finalize@@GLIBC_2.2.5"},
	{"(anonymous namespace)::work(int)", "::work"},
	{"void std::sort<int*>(int*, int*)", "std::sort"},
	{"unsigned long foo::bar<(int)3>::baz(char const*) const",
	 "foo::bar::baz"},
	{"int (*signal(int, void (*)(int)))(int)", "int "},
	{"operator<<(std::ostream&, X const&)", "operator<<"},
	{"a::operator<(a const&) const", "a::operator<"},
	{"foo()const", "foo"},
	{"foo() constexpr_thing", "fooexpr_thing"},
	{"x<>", "x"},
	{"<00ff>", ""},
	{"f(int) const volatile", "f volatile"},
	{"ns::A<ns::B<int> >::f()<0000000000401000>", "ns::A::f"},
	{"long ns::f<int>(int) [clone .constprop.0]",
	 "ns::f [clone .constprop.0]"},
	{"void a b::c", "b::c"},
	{"  std::string::~basic_string()", "std::string::~basic_string"},
};

static void test_short_name(void)
{
	for (size_t i = 0; i < sizeof short_cases / sizeof *short_cases; i++) {
		char *s = xp_cp_short_name(short_cases[i][0]);
		CHECK(s != NULL && strcmp(s, short_cases[i][1]) == 0);
		if (s != NULL && strcmp(s, short_cases[i][1]) != 0)
			printf("  %s -> \"%s\"\n", short_cases[i][0], s);
		free(s);
	}
}

static void test_routines(void)
{
	xp_diags *d = xp_diags_new(0);
	xp_sym *s = NULL;
	xp_cp_names t;
	const char *n;

	CHECK(xp_sym_open(RD "gperftools/fib_prof", &s, d) == XP_E_OK);
	xp_diags_free(d);
	if (s == NULL)
		return;
	CHECK(xp_cp_names_build(s, &t) == XP_E_OK);
	n = xp_cp_names_find(&t, 0x1260);
	CHECK(n != NULL && strcmp(n, "main<000000000000125c>") == 0);
	n = xp_cp_names_find(&t, 0x125b);
	CHECK(n != NULL && strcmp(n, "level1<000000000000123b>") == 0);
	n = xp_cp_names_find(&t, 0x12c7);
	CHECK(n != NULL && strcmp(n, "main<000000000000125c>") == 0);
	/* pprof checks the end only: below every routine is the first. */
	CHECK(t.n > 0 && xp_cp_names_find(&t, 0) == t.r[0].name);
	/* The last symbol's routine is empty. */
	CHECK(t.n > 0 && t.r[t.n - 1].start == t.r[t.n - 1].end);
	CHECK(xp_cp_names_find(&t, UINT64_MAX) == NULL);
	for (size_t i = 1; i < t.n; i++)
		CHECK(t.r[i - 1].end <= t.r[i].start);
	xp_cp_names_free(&t);
	xp_sym_free(s);
}

int main(void)
{
	RUN(test_short_name);
	RUN(test_routines);
	return unit_done();
}
