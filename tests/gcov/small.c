int twice(int x) { return 2 * x; }
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < argc; i++)
		s += twice(i);
	return s > 100;
}
