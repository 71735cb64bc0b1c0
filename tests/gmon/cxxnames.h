// cxxnames.h - the declarations cxxnames_a.cc and cxxnames_b.cc share.
#ifndef CXXNAMES_H
#define CXXNAMES_H

#define NOINLINE __attribute__((noinline))

namespace geo {

struct Vec {
	double x, y;
	Vec operator+(const Vec &o) const;
	Vec &operator*=(double k);
	bool operator<(const Vec &o) const;
};

class Shape {
public:
	virtual ~Shape() {}
	virtual double area() const = 0;
};

class Circle : public Shape {
public:
	explicit Circle(double r) : r(r) {}
	double area() const override;

private:
	double r;
};

class Square : public Shape {
public:
	explicit Square(double s) : s(s) {}
	double area() const override;

private:
	double s;
};

double scale(double v);
long scale(long v);

namespace detail {
long ping(long n);
long pong(long n);
} // namespace detail

} // namespace geo

extern "C" long run_b(int rounds);

#endif
