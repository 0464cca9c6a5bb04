/* The packet-order rules of src/decode/etm_agree.c, packet by packet: what
 * a trace unit sends for a path (ETMv4 IHI0064 / ETE IHI0099) passes, and
 * each thing it never sends is named.  (Their effect on whole windows,
 * against the fixture program's ground truth, is etm_bad::
 * packet_order_against_the_code in test_etm_decode.c.) */
#include <criterion/criterion.h>
#include <string.h>

#include "decode/etm_agree.h"

static ocsd_etmv4_i_pkt pkt(int type, uint64_t addr)
{
	ocsd_etmv4_i_pkt k;

	memset(&k, 0, sizeof(k));
	k.type = (ocsd_etmv4_i_pkt_type)type;
	k.v_addr.val = addr;
	return k;
}

/* Packet @type (address @addr) with the walk at @at, waiting for an
 * address or not. */
static enum etm_disagree feed(struct etm_agree *a, int type, uint64_t addr,
			      uint64_t at, int need_addr)
{
	ocsd_etmv4_i_pkt k = pkt(type, addr);

	return sy_etm_agree_packet(a, &k, 1, at, need_addr);
}

static void started(struct etm_agree *a)
{
	sy_etm_agree_init(a, 0, 0, 0);
	cr_assert_eq(feed(a, ETM4_PKT_I_TRACE_ON, 0, 0x1000, 1), 0);
	cr_assert_eq(feed(a, ETM4_PKT_I_ADDR_CTXT_L_64IS0, 0x1000, 0x1000, 1),
		     0);
	sy_etm_agree_addr(a);	/* the walk commits them */
}

Test(etm_agree, what_a_trace_unit_sends)
{
	struct etm_agree a;

	started(&a);
	/* atoms over direct branches, then a taken indirect branch */
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F3, 0, 0x1000, 0), 0);
	cr_assert_eq(sy_etm_agree_atom(&a), 0);
	cr_assert_eq(sy_etm_agree_atom(&a), 0);
	sy_etm_agree_indirect(&a);
	/* its target, then atoms from there */
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x1040, 1), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TIMESTAMP, 0, 0x1040, 1), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1040, 1), 0);
	sy_etm_agree_addr(&a);
	cr_assert_eq(sy_etm_agree_atom(&a), 0);
	/* a periodic sync: its address is where the walk is */
	cr_assert_eq(feed(&a, ETM4_PKT_I_ASYNC, 0, 0x2010, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TRACE_INFO, 0, 0x2010, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_CTXT_L_64IS0, 0x2010, 0x2010, 0),
		     0);
	/* an exception: its return address, then its handler's */
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x2010, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_EXCEPT, 0, 0x2020, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_L_64IS0, 0x2024, 0x2020, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_L_64IS0, 0x8000, 0x2020, 0), 0);
	/* a sync between an indirect branch and its target address */
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x8000, 0), 0);
	sy_etm_agree_indirect(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TRACE_INFO, 0, 0x8010, 1), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_L_64IS0, 0x3000, 0x8010, 1), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_L_64IS0, 0x3000, 0x8010, 1), 0);
	/* Trace On after a gap: an address anywhere */
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x8010, 1), 0);
	sy_etm_agree_addr(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TRACE_ON, 0, 0x3004, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_CTXT_L_64IS0, 0x9000, 0x3004, 0),
		     0);
}

Test(etm_agree, address_after_a_direct_branch)
{
	struct etm_agree a;

	started(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
	cr_assert_eq(sy_etm_agree_atom(&a), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x1040, 0),
		     ETM_AGREE_ADDR);
}

Test(etm_agree, two_addresses_for_one_indirect_branch)
{
	struct etm_agree a;

	started(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
	sy_etm_agree_indirect(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x1040, 1), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2040, 0x1040, 1),
		     ETM_AGREE_ADDR);
}

Test(etm_agree, atom_where_a_target_address_is_due)
{
	struct etm_agree a;

	/* in a later packet */
	started(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
	sy_etm_agree_indirect(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1040, 1),
		     ETM_AGREE_ATOM);
	/* in the same packet: the walk's next atom */
	started(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F2, 0, 0x1000, 0), 0);
	sy_etm_agree_indirect(&a);
	cr_assert_eq(sy_etm_agree_atom(&a), ETM_AGREE_ATOM);
	/* a sync does not stand for the address */
	started(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
	sy_etm_agree_indirect(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TRACE_INFO, 0, 0x1040, 1), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1040, 1), 0);
	cr_assert_eq(sy_etm_agree_atom(&a), ETM_AGREE_ATOM);
}

Test(etm_agree, sync_address_away_from_the_walk)
{
	struct etm_agree a;

	started(&a);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ASYNC, 0, 0x1040, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TRACE_INFO, 0, 0x1040, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_CTXT_L_64IS0, 0x1044, 0x1040, 0),
		     ETM_AGREE_SYNC);
}

/* Units whose packet order the rules do not model: nothing is named. */
Test(etm_agree, off_where_the_rules_do_not_hold)
{
	static const int cfg[][3] = { { 4, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	struct etm_agree a;

	for (size_t i = 0; i < 3; i++) {
		sy_etm_agree_init(&a, (uint32_t)cfg[i][0], cfg[i][1],
				  cfg[i][2]);
		cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
		sy_etm_agree_indirect(&a);
		cr_assert_eq(sy_etm_agree_atom(&a), 0);
		cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x1040,
				  0), 0);
		cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x1040,
				  0), 0);
	}
	/* a transaction (ETE TME): off until the next sync */
	started(&a);
	cr_assert_eq(feed(&a, ETE_PKT_I_TRANS_ST, 0, 0x1000, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x1000, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_TRACE_INFO, 0, 0x2000, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x2000, 0), 0);
	cr_assert_eq(feed(&a, ETM4_PKT_I_ADDR_S_IS0, 0x2000, 0x2000, 0),
		     ETM_AGREE_ADDR);
	/* a walk that does not follow the code names nothing */
	started(&a);
	{
		ocsd_etmv4_i_pkt k = pkt(ETM4_PKT_I_ADDR_S_IS0, 0x2000);

		cr_assert_eq(feed(&a, ETM4_PKT_I_ATOM_F1, 0, 0x1000, 0), 0);
		cr_assert_eq(sy_etm_agree_packet(&a, &k, 0, 0x1040, 0), 0);
	}
}
