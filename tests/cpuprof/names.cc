// names.cc - C++ functions whose names google-pprof shortens: members
// of a namespace, a class template, an operator, overloads, a const
// member function, a function in an anonymous namespace.  Built -O0 so
// that nothing is inlined; the argument scales the work.
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace shapes {

template <typename T> class Grid {
public:
	explicit Grid(int n) : cells(static_cast<size_t>(n) * n), n(n) {}
	T sum() const
	{
		T s = 0;
		for (const T &c : cells)
			s += c;
		return s;
	}
	void fill(T v)
	{
		for (int i = 0; i < n * n; i++)
			cells[static_cast<size_t>(i)] = v * static_cast<T>(i % 7);
	}
	Grid &operator+=(const Grid &o)
	{
		for (size_t i = 0; i < cells.size(); i++)
			cells[i] += o.cells[i];
		return *this;
	}

private:
	std::vector<T> cells;
	int n;
};

long spin(long k)
{
	long x = k;
	for (long i = 0; i < 200000; i++)
		x = x * 6364136223846793005L + 1442695040888963407L;
	return x;
}

double spin(double k)
{
	for (int i = 0; i < 100000; i++)
		k = k * 1.0000001 + 0.5;
	return k;
}

} // namespace shapes

namespace {

long work(int rounds)
{
	shapes::Grid<long> a(120), b(120);
	shapes::Grid<double> c(120);
	long r = 0;
	for (int i = 0; i < rounds; i++) {
		a.fill(i);
		b.fill(i + 1);
		a += b;
		c.fill(i * 0.5);
		r += a.sum() + static_cast<long>(c.sum()) + shapes::spin(r) +
		     static_cast<long>(shapes::spin(static_cast<double>(i)));
	}
	return r;
}

} // namespace

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
	std::printf("%ld\n", work(rounds));
	return 0;
}
