/* perf_event_attr decoding: any recorded size from VER0 up, unknown tail
 * ignored, missing fields zero (the kernel's own rule for smaller attrs). */
#include "sy_bytes.h"
#include "sy_perf_reader.h"

int sy_perf_attr_decode(struct sy_perf_attr *a, const uint8_t *p, size_t len)
{
	uint8_t buf[SY_ATTR_SIZE_KNOWN];

	memset(a, 0, sizeof(*a));
	if (len < SY_ATTR_SIZE_VER0)
		return -SY_E_BAD_ATTR;
	if (len > sizeof(buf))
		len = sizeof(buf);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, p, len);

	a->type = sy_le32(buf + SY_ATTR_OFF_TYPE);
	a->size = sy_le32(buf + SY_ATTR_OFF_SIZE);
	a->config = sy_le64(buf + SY_ATTR_OFF_CONFIG);
	a->sample_period = sy_le64(buf + SY_ATTR_OFF_PERIOD);
	a->sample_type = sy_le64(buf + SY_ATTR_OFF_SAMPLE_TYPE);
	a->read_format = sy_le64(buf + SY_ATTR_OFF_READ_FORMAT);
	a->flags = sy_le64(buf + SY_ATTR_OFF_FLAGS);
	a->wakeup_events = sy_le32(buf + SY_ATTR_OFF_WAKEUP);
	a->bp_type = sy_le32(buf + SY_ATTR_OFF_BP_TYPE);
	a->config1 = sy_le64(buf + SY_ATTR_OFF_CONFIG1);
	a->config2 = sy_le64(buf + SY_ATTR_OFF_CONFIG2);
	a->branch_sample_type = sy_le64(buf + SY_ATTR_OFF_BRANCH_SAMPLE_TYPE);
	a->sample_regs_user = sy_le64(buf + SY_ATTR_OFF_REGS_USER);
	a->sample_stack_user = sy_le32(buf + SY_ATTR_OFF_STACK_USER);
	a->clockid = (int32_t)sy_le32(buf + SY_ATTR_OFF_CLOCKID);
	a->sample_regs_intr = sy_le64(buf + SY_ATTR_OFF_REGS_INTR);
	a->aux_watermark = sy_le32(buf + SY_ATTR_OFF_AUX_WATERMARK);
	a->sample_max_stack = sy_le16(buf + SY_ATTR_OFF_MAX_STACK);
	a->aux_sample_size = sy_le32(buf + SY_ATTR_OFF_AUX_SAMPLE_SIZE);
	a->aux_action = sy_le32(buf + SY_ATTR_OFF_AUX_ACTION);
	a->sig_data = sy_le64(buf + SY_ATTR_OFF_SIG_DATA);
	a->config3 = sy_le64(buf + SY_ATTR_OFF_CONFIG3);
	a->first_period = sy_le64(buf + SY_ATTR_OFF_FIRST_PERIOD);
	return 0;
}
