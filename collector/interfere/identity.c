/* SPDX-License-Identifier: MIT */
/* identity.c: the identity function BWThr computes its index through (Casas & Bronevetsky Fig. 2,
 * §2.1: "located in a different file and thus not available at compile time"). Keep it alone in
 * this file; the Makefile builds it with -fno-lto so link-time optimisation cannot inline it. */
#include "interfere.h"

uint64_t pmc_identity(uint64_t x)
{
	return x;
}
