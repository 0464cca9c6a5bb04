// A C++ program that throws: exceptions thrown through several frames and
// caught at different depths, a rethrow, a destructor run by unwinding and
// std::string / std::map work between them.  For tests/corpus/run: the
// unwinder (libgcc_s, libstdc++) is real hand-written-ish code that jumps
// into landing pads, a control flow no fixture program has.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

static int destroyed;

struct Guard {
	int v;
	explicit Guard(int x) : v(x) {}
	~Guard() { destroyed += v & 1; }
};

__attribute__((noinline)) static int leaf(int n)
{
	Guard g(n);
	if (n % 7 == 3)
		throw std::runtime_error("seven " + std::to_string(n));
	if (n % 11 == 5)
		throw n;
	return n * 3;
}

__attribute__((noinline)) static int middle(int n, int depth)
{
	Guard g(depth);
	if (depth == 0)
		return leaf(n);
	return middle(n + 1, depth - 1) + 1;
}

__attribute__((noinline)) static int rethrower(int n)
{
	try {
		return middle(n, n % 5);
	} catch (int) {
		throw std::logic_error("rethrown");
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	std::map<std::string, int> seen;
	long sum = 0;

	for (int i = 0; i < rounds; i++) {
		try {
			sum += rethrower(i);
		} catch (const std::runtime_error &e) {
			seen[e.what()]++;
		} catch (const std::exception &e) {
			seen[std::string("x") + e.what()]++;
		}
	}
	printf("%ld %zu %d\n", sum, seen.size(), destroyed);
	return 0;
}
