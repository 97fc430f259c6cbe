// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mlp_data.c - the demo's synthetic data set (interleaved spirals) and the
 * pseudo-random numbers behind it, the weights' initialisation and the
 * shuffling. Everything derives from one seed, so a run is reproducible
 * bit for bit.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"

uint64_t mlp_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so log() below is finite. */
static double uniform01(uint64_t *state)
{
	return ((double)(mlp_rng_next(state) >> 11) + 1.0) * 0x1p-53;
}

/* Standard normal (Box-Muller; the second value is dropped for brevity). */
static double normal(uint64_t *state)
{
	double u = uniform01(state), v = uniform01(state);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

void mlp_shuffle(size_t *idx, size_t n, uint64_t *state)
{
	/* Fisher-Yates; the modulo bias over 2^64 is negligible here. */
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(mlp_rng_next(state) % i);
		size_t t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

int mlp_data_spiral(struct mlp_data *d, size_t per_class, uint64_t seed)
{
	const double noise = 0.2; /* radians: arms touch but stay separable */
	uint64_t rng = seed;
	size_t n;

	memset(d, 0, sizeof(*d));
	if (!per_class || per_class > SIZE_MAX / MLP_CLASSES / 64)
		return -EINVAL;
	n = per_class * MLP_CLASSES;
	d->x = malloc(n * MLP_FEATURES * sizeof(*d->x));
	d->label = malloc(n);
	if (!d->x || !d->label) {
		mlp_data_free(d);
		return -ENOMEM;
	}
	d->n = n;
	for (size_t c = 0; c < MLP_CLASSES; c++) {
		for (size_t i = 0; i < per_class; i++) {
			size_t k = c * per_class + i;
			double t = per_class > 1 ?
					   (double)i / (double)(per_class - 1) :
					   0.5;
			double r = 0.1 + 1.9 * t;
			double theta = 2.0 * M_PI * ((double)c / MLP_CLASSES + t) +
				       noise * normal(&rng);

			d->x[k * MLP_FEATURES] = (float)(r * cos(theta));
			d->x[k * MLP_FEATURES + 1] = (float)(r * sin(theta));
			d->label[k] = (uint8_t)c;
		}
	}
	return 0;
}

void mlp_data_free(struct mlp_data *d)
{
	free(d->x);
	free(d->label);
	memset(d, 0, sizeof(*d));
}
