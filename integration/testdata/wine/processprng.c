/*
 * bcryptprimitives.dll for Wine 8, which does not ship it: the Go runtime
 * (1.22 and later) loads it from system32 at start and takes its random
 * bytes from ProcessPrng. This one answers from RtlGenRandom
 * (SystemFunction036), which Wine implements. Only the Wine test run of
 * the Windows build installs it, into its own Wine prefix.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x10000000 ? 0x10000000 : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
