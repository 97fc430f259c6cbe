// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_telemetry.c - the telemetry registers (docs/hardware.md section
 * 3). The model has no sensors; it reports fixed idle values and raises
 * temperature and power while launches run and DMA moves data, so that a
 * driver's hwmon readings change with load as they would on silicon.
 */
#include "emu_internal.h"

#define IDLE_TEMP_MC	40000u
#define BUSY_TEMP_MC	65000u
#define IDLE_POWER_MW	25000u
#define BUSY_POWER_MW	150000u
#define DMA_POWER_MW	10000u
#define CORE_CLK_MHZ	1850u
#define MEM_CLK_MHZ	1600u

/* The three 64-bit counters, one latch each. */
_Static_assert(IPU_REG_DMA_D2H_BYTES == IPU_REG_DMA_H2D_BYTES + 8 &&
	       IPU_REG_UPTIME_MS == IPU_REG_DMA_H2D_BYTES + 16,
	       "64-bit counters' layout");

/* The 64-bit counter at @off (8-aligned) now. */
static uint64_t counter_locked(const struct emu_dev *dev, uint32_t off)
{
	switch (off) {
	case IPU_REG_DMA_H2D_BYTES:
		return dev->h2d_bytes;
	case IPU_REG_DMA_D2H_BYTES:
		return dev->d2h_bytes;
	default:
		return emu_now_ms() - dev->up_since_ms;
	}
}

/*
 * The 64-bit counters are read as two 32-bit halves (docs/hardware.md
 * 2.3): the low half's read takes the whole value and latches its high
 * half, which the high half's read returns, so that a counter that
 * carries into its high half between the two reads is not seen torn. An
 * 8-byte read is the two in one hold of the lock.
 */
static uint32_t counter_half_locked(struct emu_dev *dev, uint32_t off)
{
	uint32_t base = off & ~7u;
	uint32_t *hi = &dev->counter_hi[(base - IPU_REG_DMA_H2D_BYTES) / 8];
	uint64_t v;

	if (off % 8)
		return *hi;
	v = counter_locked(dev, base);
	*hi = (uint32_t)(v >> 32);
	return (uint32_t)v;
}

uint32_t emu_telemetry_read_locked(struct emu_dev *dev, uint32_t off)
{
	bool running = atomic_load(&dev->running) > 0;
	bool dma = atomic_load(&dev->dma_busy) > 0;

	if (off >= IPU_REG_DMA_H2D_BYTES && off < IPU_REG_UPTIME_MS + 8)
		return counter_half_locked(dev, off);
	switch (off) {
	case IPU_REG_TEMP_MC:
		return running ? BUSY_TEMP_MC : IDLE_TEMP_MC;
	case IPU_REG_POWER_MW:
		return (running ? BUSY_POWER_MW : IDLE_POWER_MW) +
		       (dma ? DMA_POWER_MW : 0);
	case IPU_REG_CORE_CLK_MHZ:
		return CORE_CLK_MHZ;
	case IPU_REG_MEM_CLK_MHZ:
		return MEM_CLK_MHZ;
	case IPU_REG_MEM_CE:
		return dev->mem_ce;
	case IPU_REG_MEM_UE:
		return dev->mem_ue;
	case IPU_REG_LAUNCHES:
		return dev->launches;
	default:
		return 0;
	}
}
