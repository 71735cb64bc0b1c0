// cxxnames_a.cc - with cxxnames_b.cc, a C++ program whose functions have
// mangled linker names (tests/gmon.sh): classes with virtual members,
// namespaces, overloads, a function template, std::vector's class
// templates, operator overloads, an anonymous namespace, mutual
// recursion (a call graph cycle), an extern "C" function and a static
// function, helper, in both files.  noinline keeps them apart at -O2.
#include <cstdio>
#include <vector>

#include "cxxnames.h"

namespace geo {

template <typename T> NOINLINE T total(const std::vector<T> &v)
{
	T s = 0;
	for (const T &x : v)
		s += x;
	return s;
}

} // namespace geo

namespace {

NOINLINE unsigned mix(unsigned h)
{
	for (int i = 0; i < 200000; i++)
		h = (h ^ (h >> 13)) * 0x5bd1e995u + static_cast<unsigned>(i);
	return h;
}

} // namespace

static NOINLINE int helper(int x)
{
	int s = 0;
	for (int i = 0; i < x * 50; i++)
		s += i * x;
	return s;
}

int main()
{
	std::vector<const geo::Shape *> shapes;
	std::vector<long> lv;
	std::vector<double> dv;
	geo::Circle c(1.5);
	geo::Square q(2.0);
	geo::Vec v = { 1, 2 }, w = { 0.5, 0.25 };
	double area = 0;
	unsigned h = 7;
	long s = 0;

	shapes.push_back(&c);
	shapes.push_back(&q);
	for (int i = 0; i < 400; i++) {
		lv.push_back(geo::scale(static_cast<long>(i)));
		dv.push_back(geo::scale(static_cast<double>(i)));
		for (const geo::Shape *sh : shapes)
			area += sh->area();
		v = v + w;
		v *= 0.999;
		if (v < w)
			v = w;
		h = mix(h);
		s += helper(i) + geo::detail::ping(i % 37);
		s += geo::total(lv) + static_cast<long>(geo::total(dv));
	}
	s += run_b(300);
	std::printf("%ld %u %.3f %.3f\n", s, h, area, v.x);
	return 0;
}
