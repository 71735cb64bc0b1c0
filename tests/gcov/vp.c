static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
int (*ops[2])(int, int) = { add, sub };
int main(int argc, char **argv)
{
	int s = 1;
	for (int i = 1; i < 40 + argc; i++)
		s = ops[i % 2](s, i) % (unsigned)(argc + 2);
	return s > 1000;
}
