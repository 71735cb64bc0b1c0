/* hot.c - the program whose DCPI profile tests/dcpi.sh converts. */
static volatile int sink;

void hot(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

void cold(void)
{
	sink = 1;
}

int main(void)
{
	hot(1000);
	cold();
	return 0;
}
