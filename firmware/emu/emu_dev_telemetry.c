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

uint32_t emu_telemetry_read_locked(const struct emu_dev *dev, uint32_t off)
{
	bool running = atomic_load(&dev->running) > 0;
	bool dma = atomic_load(&dev->dma_busy) > 0;
	uint64_t up = emu_now_ms() - dev->up_since_ms;

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
	case IPU_REG_DMA_H2D_BYTES:
		return (uint32_t)dev->h2d_bytes;
	case IPU_REG_DMA_H2D_BYTES + 4:
		return (uint32_t)(dev->h2d_bytes >> 32);
	case IPU_REG_DMA_D2H_BYTES:
		return (uint32_t)dev->d2h_bytes;
	case IPU_REG_DMA_D2H_BYTES + 4:
		return (uint32_t)(dev->d2h_bytes >> 32);
	case IPU_REG_UPTIME_MS:
		return (uint32_t)up;
	case IPU_REG_UPTIME_MS + 4:
		return (uint32_t)(up >> 32);
	default:
		return 0;
	}
}
