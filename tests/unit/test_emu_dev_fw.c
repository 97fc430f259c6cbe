// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_fw.c - firmware boot of the PCIe IPU model
 * (docs/hardware.md section 8) with the image the build makes
 * (ipu-mkfw): READY with its version; each defect of an image, resealed
 * so that it reaches its own check, fails with its own code; the
 * refuse_fw fault; BOOT while READY; no command queue before READY.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <zlib.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

static uint32_t crc(const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

/* Recompute the payload's and then the header's CRC. */
static void reseal(uint8_t *img, size_t len)
{
	struct ipu_fw_header h;

	memcpy(&h, img, sizeof(h));
	h.payload_crc32 = crc(img + 64, len - 64);
	memcpy(img, &h, sizeof(h));
	h.header_crc32 = crc(img, 60);
	memcpy(img, &h, sizeof(h));
}

static uint8_t *image(size_t *len)
{
	uint8_t *img = th_fw_image(len);

	assert_non_null(img);
	return img;
}

static uint32_t boot_code(uint8_t *img, size_t len)
{
	struct th *t = th_new();
	uint32_t st = th_boot_image(t, img, len, 0x1000);

	assert_int_equal(st & IPU_FW_STATE_MASK,
			 st >> 8 ? IPU_FW_STATE_FAILED : IPU_FW_STATE_READY);
	if (st >> 8) {
		assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_FW_FAILED);
		assert_int_equal(th_last_err(t), IPU_ERR_FW_BOOT);
		assert_int_equal(rd32(t, IPU_REG_FW_VERSION), 0);
	}
	th_free(t);
	return st >> IPU_FW_ERR_SHIFT;
}

static void test_the_built_image_boots(void **state)
{
	struct th *t = th_new();
	size_t len;
	uint8_t *img = image(&len);

	(void)state;
	th_msgs_on(t);	/* messages need Bus Master (v2), MSI-X Enable */
	wr32(t, IPU_REG_IRQ_MASK, 0);
	assert_int_equal(th_boot_image(t, img, len, 0x3000), IPU_FW_STATE_READY);
	assert_int_equal(rd32(t, IPU_REG_FW_VERSION), 0x010000);
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_FW_READY);
	assert_true(rd32(t, IPU_REG_IRQ_CAUSE) & IPU_IRQ_FW_BOOT);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 0);
	/* Again while READY: refused, still READY. */
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(th_last_err(t), IPU_ERR_FW_BOOT);
	assert_int_equal(rd32(t, IPU_REG_ERR_LOG + 4), IPU_FW_ERR_BUSY);
	free(img);
	th_free(t);
}

static void test_each_defect_has_its_code(void **state)
{
	size_t len;
	uint8_t *good = image(&len), *img = malloc(len + 8);
	struct ipu_fw_header *h = (struct ipu_fw_header *)img;

	(void)state;
#define FRESH() memcpy(img, good, len)
	FRESH();
	img[0] ^= 1;
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_MAGIC);
	FRESH();
	h->format = 2;
	reseal(img, len);
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_VERSION);
	FRESH();
	img[0x20] = 1;			/* reserved, header CRC left stale */
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_HEADER_CRC);
	FRESH();
	img[0x20] = 1;
	reseal(img, len);
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_PAYLOAD);
	FRESH();
	img[len - 1] ^= 0x40;		/* payload, its CRC stale */
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_PAYLOAD_CRC);
	FRESH();
	h->fw_version = 2u << 16;
	reseal(img, len);
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_VERSION);
	FRESH();
	memset(img + len, 0, 8);	/* 8 bytes more than payload_size */
	assert_int_equal(boot_code(img, len + 8), IPU_FW_ERR_SIZE);
	assert_int_equal(boot_code(img, 63), IPU_FW_ERR_SIZE);
	FRESH();
	img[64] = 9;			/* IDENT record becomes unknown tag 9 */
	reseal(img, len);
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_PAYLOAD);
	FRESH();
	img[68] = 0xff;			/* a record longer than the payload */
	reseal(img, len);
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_PAYLOAD);
	FRESH();
	assert_int_equal(boot_code(img, len), IPU_FW_ERR_NONE);
#undef FRESH
	free(img);
	free(good);
}

static void test_an_image_outside_memory_is_a_range_error(void **state)
{
	struct th *t = th_new();

	(void)state;
	wr64(t, IPU_REG_FW_ADDR, (1u << 20) - 32);
	wr32(t, IPU_REG_FW_SIZE, 140);
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS),
			 IPU_FW_STATE_FAILED | IPU_FW_ERR_RANGE << 8);
	wr64(t, IPU_REG_FW_ADDR, UINT64_MAX - 8);
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS) >> 8, IPU_FW_ERR_RANGE);
	/* A failed boot may be retried. */
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_free(t);
}

static void test_refuse_fw_fails_a_good_image(void **state)
{
	struct th *t = th_new_opts(1u << 20, 0, 1, "refuse_fw", NULL);

	(void)state;
	assert_int_equal(th_boot(t), IPU_FW_STATE_FAILED | IPU_FW_ERR_REFUSED << 8);
	assert_int_equal(emu_dev_fault(t->dev, "refuse_fw=0"), 0);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_free(t);
}

static void test_no_command_queue_before_firmware(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_CMD, 8);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_CMD, IPU_Q_CTRL)), 0);
	assert_int_equal(th_last_err(t), IPU_ERR_NO_FIRMWARE);
	/* DMA works without firmware. */
	th_ring(t, IPU_QUEUE_H2D, 8);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL)), 1);
	/* Booting with a queue enabled is refused. */
	assert_int_equal(th_boot(t), IPU_FW_STATE_OFF);
	wr32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL), 0);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_ring(t, IPU_QUEUE_CMD, 8);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_CMD, IPU_Q_CTRL)), 1);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_built_image_boots),
		cmocka_unit_test(test_each_defect_has_its_code),
		cmocka_unit_test(test_an_image_outside_memory_is_a_range_error),
		cmocka_unit_test(test_refuse_fw_fails_a_good_image),
		cmocka_unit_test(test_no_command_queue_before_firmware),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
