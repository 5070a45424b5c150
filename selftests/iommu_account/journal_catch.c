// SPDX-License-Identifier: GPL-2.0
/*
 * journal_catch SOCKET OUT: stand where journald's socket is
 * (/run/systemd/journal/socket) and append every datagram the daemon
 * writes there to OUT, one field per line, records separated by an empty
 * line. journald itself does not run in the VM (the system lane has the
 * real one): this reads the journal's native protocol (simple
 * "FIELD=value\n" entries; binary-safe entries are written as
 * FIELD\n<le64 size><data>\n).
 * Prints "ready" once bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 16];
	ssize_t n, i;
	FILE *out;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: journal_catch SOCKET OUT\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("journal_catch");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			continue;
		out = fopen(argv[2], "a");
		if (!out)
			return 1;
		for (i = 0; i < n;) {
			char *nl = memchr(buf + i, '\n', n - i), *eq;
			uint64_t len;

			if (!nl)
				break;
			eq = memchr(buf + i, '=', nl - (buf + i));
			if (eq) {
				fwrite(buf + i, 1, nl - (buf + i) + 1, out);
				i = nl - buf + 1;
				continue;
			}
			/* FIELD\n, then a little-endian 64-bit size, the data, \n. */
			fwrite(buf + i, 1, nl - (buf + i), out);
			i = nl - buf + 1;
			if (i + 8 > n)
				break;
			memcpy(&len, buf + i, 8);
			i += 8;
			if (len > (uint64_t)(n - i))
				break;
			fputc('=', out);
			fwrite(buf + i, 1, len, out);
			fputc('\n', out);
			i += len + 1;
		}
		fputc('\n', out);
		fclose(out);
	}
}
