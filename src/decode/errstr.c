/* Decoder error codes in words: what the window listing prints instead of
 * a bare library number.  libipt says it itself (pt_errstr); OpenCSD's
 * ocsd_err_str gives "OCSD_ERR_X (0x..) [text]", from which the text is
 * kept, except for the codes a damaged or unresolvable trace commonly
 * gives, which get a sentence a user can act on. */
#include <intel-pt.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <stdio.h>
#include <string.h>

#include "sy_decode.h"

static const char *sy_etm_common(int code)
{
	switch (code) {
	case OCSD_ERR_MEM_NACC:
		return "no code at the traced address";
	case OCSD_ERR_BAD_DECODE_PKT:
		return "reserved or unknown packet";
	case OCSD_ERR_UNSUPP_DECODE_PKT:
		return "packet not supported by the decoder";
	case OCSD_ERR_BAD_PACKET_SEQ:
		return "bad packet sequence";
	case OCSD_ERR_INVALID_PCKT_HDR:
		return "invalid packet header";
	case OCSD_ERR_PKT_INTERP_FAIL:
		return "packets cannot be interpreted (bad data or sequence)";
	case OCSD_ERR_DFMTR_BAD_FHSYNC:
		return "bad frame sync in the formatted trace";
	case OCSD_ERR_DFMTR_NOTCONTTRACE:
		return "formatted trace not continuous";
	case OCSD_ERR_COMMIT_PKT_OVERRUN:
		return "commit packet beyond the elements to commit";
	case OCSD_ERR_RET_STACK_OVERFLOW:
		return "return stack popped more than pushed";
	case SY_DEC_ERR_DISAGREE:
		return "trace and code disagree: an unconditional branch not "
		       "taken (damaged trace, or not the binary that ran)";
	case SY_DEC_ERR_PATH:
		return "trace and code disagree: the packets' order does not "
		       "fit the code's branches (damaged trace, or not the "
		       "binary that ran)";
	default:
		return NULL;
	}
}

const char *sy_dec_errstr(enum sy_trace_kind kind, int code, char *buf,
			  size_t len)
{
	const char *s;

	if (!len)
		return "";
	if (kind == SY_TRACE_PT && code == SY_DEC_ERR_LOST) {
		snprintf(buf, len, "no sync after an earlier decode error: "
			 "decoding starts again at the next PSB");
		return buf;
	}
	if (kind == SY_TRACE_PT) {
		s = pt_errstr((enum pt_error_code)(code < 0 ? -code : code));
		snprintf(buf, len, "%s", s ? s : "unknown libipt error");
		return buf;
	}
	if ((s = sy_etm_common(code))) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	char full[256];
	const char *open, *close;

	full[0] = 0;
	ocsd_err_str((ocsd_err_t)code, full, (int)sizeof(full));
	open = strchr(full, '[');
	close = open ? strrchr(open, ']') : NULL;
	if (open && close)
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(buf, len, "OpenCSD error %d", code);
	return buf;
}

int sy_dec_err_no_code(enum sy_trace_kind kind, int code)
{
	if (kind == SY_TRACE_PT)
		return code == pte_nomap || code == -pte_nomap;
	return code == OCSD_ERR_MEM_NACC;
}
