# src.awk - writes the source files that a feedback text's SRCFILE
# sections name, under the directory root (awk -v root=DIR), for the
# xprof_tcov benchmark (bench/scale.sh): each file has the lines its
# SRCLINE records name and ten more, as C statements, and the path of
# each file written is printed, one a line.
/^SRCFILE: / {
	f = $2
	if (!(f in last))
		last[f] = 0
}
/^SRCLINE: / {
	split($2, a, ":")
	if (a[1] + 0 > last[f])
		last[f] = a[1] + 0
}
END {
	for (f in last) {
		out = root f
		dir = out
		sub(/\/[^\/]*$/, "", dir)
		if (!(dir in made)) {
			system("mkdir -p '" dir "'")
			made[dir] = 1
		}
		n = last[f] + 10
		for (i = 1; i <= n; i++)
			printf "\tcount[%d] += step(count[%d], %d);\n", i % 64,
				(i * 7) % 64, i > out
		close(out)
		print out
	}
}
