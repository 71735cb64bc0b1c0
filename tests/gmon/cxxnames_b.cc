// cxxnames_b.cc - the definitions of cxxnames_a.cc's members, overloads
// and operators, its other static helper and an extern "C" function.
#include "cxxnames.h"

namespace geo {

NOINLINE Vec Vec::operator+(const Vec &o) const
{
	return Vec{ x + o.x, y + o.y };
}

NOINLINE Vec &Vec::operator*=(double k)
{
	x *= k;
	y *= k;
	return *this;
}

NOINLINE bool Vec::operator<(const Vec &o) const
{
	return x < o.x || (x == o.x && y < o.y);
}

NOINLINE double Circle::area() const
{
	double a = 0;
	for (int i = 0; i < 30000; i++)
		a += 3.14159 * r * r / (i + 1);
	return a;
}

NOINLINE double Square::area() const
{
	double a = 0;
	for (int i = 0; i < 20000; i++)
		a += s * s / (i + 1);
	return a;
}

NOINLINE double scale(double v)
{
	for (int i = 0; i < 20000; i++)
		v = v * 1.0000001 + 0.5;
	return v;
}

NOINLINE long scale(long v)
{
	for (int i = 0; i < 20000; i++)
		v = v * 6364136223846793005L + 1442695040888963407L;
	return v;
}

namespace detail {

NOINLINE long ping(long n)
{
	return n <= 0 ? 1 : pong(n - 1) + n;
}

NOINLINE long pong(long n)
{
	return n <= 0 ? 0 : ping(n - 1) * 3;
}

} // namespace detail

} // namespace geo

static NOINLINE int helper(int x)
{
	int s = 1;
	for (int i = 0; i < x * 100; i++)
		s ^= i + x;
	return s;
}

extern "C" NOINLINE long run_b(int rounds)
{
	long s = 0;
	for (int i = 0; i < rounds; i++)
		s += helper(i);
	return s;
}
