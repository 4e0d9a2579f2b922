/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hostile's attacks on the pool's tables (included by hostile.c): garbage
 * in free Section entries, F's host entry flipping through every state,
 * fake NIC entries and MAC claims on F's virt_queue control lines.
 */
/* Garbage in free Section entries for a while, then as they were. */
static unsigned long forge_sections(void)
{
	uint32_t n = P.g.section_count, s, nfree = 0;
	struct drack_section_entry *saved = calloc(n, sizeof(*saved));
	uint32_t *free_ids = calloc(n, sizeof(*free_ids));
	unsigned long writes = 0;
	double t0 = now();

	if (!saved || !free_ids)
		return 0;
	for (s = P.g.meta_sections; s < n; s++)
		if (le16toh(sect(s)->owner) == DRACK_SECTION_FREE) {
			saved[nfree] = *sect(s);
			free_ids[nfree++] = s;
		}
	/* Keep a few free, so the FM still has Sections to grant. */
	nfree = nfree > 4 ? nfree - 4 : 0;
	while (nfree && now() - t0 < P.seconds) {
		struct drack_section_entry *e = sect(free_ids[rnd() % nfree]);
		static const uint16_t owners[] = { 0xfffd, 0x8000, 999, 64 };

		e->buf_class = (uint8_t)rnd();
		e->flags = (uint8_t)rnd();
		e->generation = htole32((uint32_t)rnd());
		__atomic_store_n((uint16_t *)&e->owner,
				 htole16(owners[rnd() % 4]), __ATOMIC_RELEASE);
		writes++;
		sleep_us(500);
	}
	for (s = 0; s < nfree; s++) {
		*sect(free_ids[s]) = saved[s];
		__atomic_store_n((uint16_t *)&sect(free_ids[s])->owner,
				 htole16(DRACK_SECTION_FREE), __ATOMIC_RELEASE);
	}
	free(saved);
	free(free_ids);
	return writes;
}

/* F's own entry through every state, flag and generation, and garbage. */
static unsigned long flip_states(void)
{
	struct drack_host_entry *he = host(P.rogue);
	static const uint32_t states[] = {
		DRACK_HOST_JOINING, DRACK_HOST_UP, DRACK_HOST_LEAVING,
		DRACK_HOST_DEAD, DRACK_HOST_FREE, 7, 0xffffffffU,
	};
	unsigned long flips = 0;
	double t0 = now();

	while (now() - t0 < P.seconds) {
		he->flags = htole32((uint32_t)rnd() & 3);
		he->generation = htole32((uint32_t)rnd());
		he->lend_cap_kb = htole32((uint32_t)rnd());
		he->lend_sections[rnd() % DRACK_NR_CLASSES] = htole16((uint16_t)rnd());
		st32(&he->state, states[rnd() % 7]);
		flips++;
		sleep_us(500);
	}
	st32(&he->state, DRACK_HOST_UP);
	return flips;
}

/* Fake NIC entries in free slots, and MAC claims on F's control lines. */
static unsigned long fake_nics(void)
{
	struct drack_nic_entry saved[DRACK_MAX_NICS], *e;
	bool mine[DRACK_MAX_NICS] = { 0 };
	unsigned long writes = 0;
	double t0 = now();
	uint32_t n, h;

	if (!P.g.max_nics)
		return 0;
	for (n = 0; n < P.g.max_nics; n++) {
		e = at(drack_nic_entry_off(&P.g, n));
		saved[n] = *e;
		mine[n] = ld32(&e->state) == DRACK_NIC_FREE;
	}
	while (now() - t0 < P.seconds) {
		n = (uint32_t)(rnd() % P.g.max_nics);
		if (mine[n]) {
			e = at(drack_nic_entry_off(&P.g, n));
			e->owner = htole16(rnd() & 1 ? P.rogue : (uint16_t)rnd());
			for (int i = 0; i < 6; i++)
				e->mac[i] = (uint8_t)rnd();
			e->generation = htole32((uint32_t)rnd());
			e->assigned = htole64(rnd());
			st32(&e->state, (uint32_t)(rnd() % 4));
		} else {
			/*
			 * F claims a victim's vNIC or host MAC, or everyone's,
			 * at NIC n (where the FM writes F's): the owner must
			 * serve F under a MAC of F's only.
			 */
			struct drack_vq_ctl *c = at(drack_vq_off(&P.g, n,
								 P.rogue));

			h = (uint32_t)(rnd() % P.g.max_hosts);
			switch (rnd() % 3) {
			case 0:
				memset(c->mac, 0xff, 6);
				break;
			case 1:
				memcpy(c->mac, host(h)->mac, 6);
				break;
			default:
				drack_vnic_mac(c->mac, P.pool_id, h, n);
			}
			c->mc_filter[rnd() & 1] = htole64(rnd());
			c->vnics = htole64(rnd());
			st32(&c->attached, (uint32_t)rnd());
		}
		writes++;
		sleep_us(500);
	}
	for (n = 0; n < P.g.max_nics; n++) {
		if (mine[n]) {
			e = at(drack_nic_entry_off(&P.g, n));
			*e = saved[n];
			st32(&e->state, DRACK_NIC_FREE);
		}
		memset(at(drack_vq_off(&P.g, n, P.rogue)), 0,
		       sizeof(struct drack_vq_ctl));
	}
	return writes;
}

