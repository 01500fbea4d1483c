package dev.jobqueue.core.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.ClaimRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** The claim planner alone: no worker, no database. */
class ClaimPlannerTests {

	static final Instant LEASE_UNTIL = Instant.parse("2026-05-01T10:00:30Z");

	@Test
	void typesWithoutCapsShareTheFreeSlots() {
		ClaimRequest request = plan(4, List.of(handler("mail", 0, 0), handler("pdf", 0, 0)), Map.of());

		assertThat(request.workerId()).isEqualTo("w1");
		assertThat(request.limit()).isEqualTo(4);
		assertThat(request.unlimitedTypes()).containsExactlyInAnyOrder("mail", "pdf");
		assertThat(request.limitedTypes()).isEmpty();
		assertThat(request.globalLimits()).isEmpty();
		assertThat(request.notRepeatableTypes()).isEmpty();
		assertThat(request.leaseUntil()).isEqualTo(LEASE_UNTIL);
		assertThat(request.isEmpty()).isFalse();
	}

	@Test
	void noFreeSlotAsksForNothing() {
		ClaimRequest request = plan(0, List.of(handler("mail", 0, 0), handler("pdf", 2, 0)), Map.of());

		assertThat(request.isEmpty()).isTrue();
		assertThat(request.limit()).isZero();
		assertThat(request.unlimitedTypes()).isEmpty();
		assertThat(request.limitedTypes()).isEmpty();
	}

	@Test
	void negativeFreeSlotsAreNone() {
		// More runs than slots: an abandoned run still holds its slot while a new run
		// took one.
		ClaimRequest request = plan(-1, List.of(handler("mail", 0, 0)), Map.of());

		assertThat(request.isEmpty()).isTrue();
		assertThat(request.limit()).isZero();
	}

	@Test
	void noHandlerAsksForNothing() {
		assertThat(plan(8, List.of(), Map.of()).isEmpty()).isTrue();
	}

	@Test
	void aCappedTypeMayTakeItsCapMinusItsRuns() {
		ClaimRequest request = plan(8, List.of(handler("pdf", 3, 0)), Map.of("pdf", 1));

		assertThat(request.limitedTypes()).containsExactly(entry("pdf", 2));
		assertThat(request.unlimitedTypes()).isEmpty();
		assertThat(request.limit()).isEqualTo(8);
	}

	@Test
	void aCappedTypeTakesNoMoreThanTheFreeSlots() {
		ClaimRequest request = plan(2, List.of(handler("pdf", 5, 0)), Map.of());

		assertThat(request.limitedTypes()).containsExactly(entry("pdf", 2));
	}

	@Test
	void aTypeAtItsCapIsLeftOut() {
		ClaimRequest request = plan(6, List.of(handler("pdf", 2, 0), handler("mail", 0, 0)), Map.of("pdf", 2));

		assertThat(request.limitedTypes()).isEmpty();
		assertThat(request.unlimitedTypes()).containsExactly("mail");
		assertThat(request.isEmpty()).isFalse();
	}

	@Test
	void everyTypeAtItsCapMakesAnEmptyClaim() {
		ClaimRequest request = plan(6, List.of(handler("pdf", 2, 0), handler("csv", 1, 0)), Map.of("pdf", 2, "csv", 1));

		assertThat(request.isEmpty()).isTrue();
		assertThat(request.limit()).isEqualTo(6);
	}

	@Test
	void aTypeOverItsCapIsLeftOut() {
		// A deaf run that was abandoned still counts: the type can be over its cap for a
		// while.
		ClaimRequest request = plan(4, List.of(handler("pdf", 1, 0)), Map.of("pdf", 2));

		assertThat(request.limitedTypes()).isEmpty();
		assertThat(request.isEmpty()).isTrue();
	}

	@Test
	void runsOfOtherTypesDoNotCountAgainstACap() {
		ClaimRequest request = plan(4, List.of(handler("pdf", 2, 0)), Map.of("mail", 7));

		assertThat(request.limitedTypes()).containsExactly(entry("pdf", 2));
	}

	@Test
	void aGloballyCappedTypeMayTakeTheFreeSlotsAndNamesItsCapForTheStore() {
		ClaimRequest request = plan(5, List.of(handler("report", 0, 3)), Map.of("report", 4));

		assertThat(request.limitedTypes()).containsExactly(entry("report", 5));
		assertThat(request.globalLimits()).containsExactly(entry("report", 3));
		assertThat(request.unlimitedTypes()).isEmpty();
	}

	@Test
	void bothCapsTakeTheLocalFreeCountAndNameTheGlobalCap() {
		ClaimRequest request = plan(5, List.of(handler("report", 2, 10)), Map.of("report", 1));

		assertThat(request.limitedTypes()).containsExactly(entry("report", 1));
		assertThat(request.globalLimits()).containsExactly(entry("report", 10));
	}

	@Test
	void aGlobalCapIsNotNamedForATypeAtItsLocalCap() {
		ClaimRequest request = plan(5, List.of(handler("report", 2, 10)), Map.of("report", 2));

		assertThat(request.limitedTypes()).isEmpty();
		assertThat(request.globalLimits()).isEmpty();
	}

	@Test
	void notRepeatableTypesAreNamedWhetherOrNotTheyCanBeClaimedNow() {
		HandlerDefinition once = new HandlerDefinition("charge", (payload, context) -> null, 0, null, 1, false, "test");
		HandlerDefinition repeatable = handler("mail", 0, 0);

		ClaimRequest request = plan(3, List.of(once, repeatable), Map.of("charge", 1));

		assertThat(request.notRepeatableTypes()).containsExactly("charge");
		assertThat(request.limitedTypes()).isEmpty();
		assertThat(request.unlimitedTypes()).containsExactly("mail");
	}

	@Test
	void aMixOfTypes() {
		List<HandlerDefinition> handlers = List.of(handler("mail", 0, 0), handler("pdf", 4, 0), handler("report", 0, 2),
				handler("csv", 1, 0));

		ClaimRequest request = plan(3, handlers, Map.of("pdf", 2, "csv", 1, "mail", 5));

		assertThat(request.limit()).isEqualTo(3);
		assertThat(request.unlimitedTypes()).containsExactly("mail");
		assertThat(request.limitedTypes()).containsOnly(entry("pdf", 2), entry("report", 3));
		assertThat(request.globalLimits()).containsOnly(entry("report", 2));
	}

	@Test
	void claimAheadTakesMoreThanTheFreeSlotsForTypesThatMayWait() {
		List<HandlerDefinition> handlers = List.of(handler("mail", 0, 0), handler("pdf", 4, 0));

		ClaimRequest request = ClaimPlanner.plan("w1", 20, 2, handlers, Map.of("pdf", 1), LEASE_UNTIL);

		assertThat(request.limit()).isEqualTo(20);
		assertThat(request.unlimitedTypes()).containsExactly("mail");
		assertThat(request.limitedTypes()).containsOnly(entry("pdf", 3));
	}

	@Test
	void notRepeatableAndGloballyCappedTypesTakeOnlyTheSlotsFreeNow() {
		HandlerDefinition once = new HandlerDefinition("once", (payload, context) -> null, 0, null, 0, false, "once");
		List<HandlerDefinition> handlers = List.of(handler("mail", 0, 0), once);

		ClaimRequest request = ClaimPlanner.plan("w1", 20, 2, handlers, Map.of(), LEASE_UNTIL);

		assertThat(request.limitedTypes()).containsOnly(entry("once", 2));
		assertThat(request.notRepeatableTypes()).containsExactly("once");
		assertThat(ClaimPlanner.plan("w1", 20, 0, handlers, Map.of(), LEASE_UNTIL).limitedTypes()).isEmpty();
	}

	@Test
	void typesThatMayNotWaitEachAskForEverySlotFreeNow() {
		HandlerDefinition once = new HandlerDefinition("once", (payload, context) -> null, 0, null, 0, false, "once");
		List<HandlerDefinition> handlers = List.of(handler("mail", 0, 0), once, handler("report", 0, 2));

		ClaimRequest request = ClaimPlanner.plan("w1", 20, 3, handlers, Map.of(), LEASE_UNTIL);

		// The store claims the slots free now as a part of their own: together these
		// types take no more than 3.
		assertThat(request.limitedTypes()).containsOnly(entry("once", 3), entry("report", 3));
		assertThat(request.globalLimits()).containsOnly(entry("report", 2));
		assertThat(request.startingNow().limit()).isEqualTo(3);
		assertThat(request.ahead(List.of()).limitedTypes()).isEmpty();
	}

	@Test
	void anOrderedTypeAmongOtherTypesThatMayNotWaitAsksForEverySlotFreeNow() {
		// The flow torture's mix: one type claimed ahead and four that were not; a
		// share-out by turns gave the ordered type 1 of the 4 free slots, so one job per
		// claim.
		List<HandlerDefinition> handlers = List.of(handler("fair", 0, 0),
				flowHandler("ordered", new FlowControl(null, null, 0, true, true)),
				flowHandler("pairs", new FlowControl(null, null, 2, false, true)),
				flowHandler("rated",
						new FlowControl(RateLimit.parse("60/1s"), RateLimit.parse("15/1s"), 0, false, true)),
				flowHandler("fairPairs", new FlowControl(null, null, 2, false, true)));

		ClaimRequest request = ClaimPlanner.plan("w1", 12, 4, handlers, Map.of(), LEASE_UNTIL);

		assertThat(request.limitedTypes()).containsOnly(entry("ordered", 12), entry("pairs", 12), entry("rated", 4),
				entry("fairPairs", 12));
		assertThat(request.startingNow().limitedTypes()).containsEntry("ordered", 12);
		assertThat(request.startingNow().limit()).isEqualTo(4);
	}

	@Test
	void typesThatStartOnlyNowAreOfferedTheSlotsFreeNowFirst() {
		FlowControl rated = new FlowControl(RateLimit.parse("30/3s"), null, 0, false, true);
		FlowControl ordered = new FlowControl(null, null, 0, true, true);
		List<HandlerDefinition> handlers = List.of(flowHandler("rated", rated), flowHandler("ordered", ordered),
				handler("report", 0, 2), handler("mail", 0, 0));

		ClaimRequest request = ClaimPlanner.plan("w1", 12, 4, handlers, Map.of(), LEASE_UNTIL);
		ClaimRequest onlyNow = request.startingNow().onlyNow();

		assertThat(onlyNow.limit()).isEqualTo(4);
		assertThat(onlyNow.unlimitedTypes()).isEmpty();
		assertThat(onlyNow.limitedTypes()).containsOnly(entry("rated", 4), entry("report", 4));
		assertThat(onlyNow.flowControls()).containsOnly(entry("rated", rated));
		assertThat(onlyNow.globalLimits()).containsOnly(entry("report", 2));
		assertThat(request.startsOnlyNow("ordered")).isFalse();
		assertThat(request.startsOnlyNow("mail")).isFalse();
	}

	@Test
	void typesLimitedPerKeyAreClaimedAheadWithTheirFlowControlAndRateLimitedOnesAreNot() {
		FlowControl ordered = new FlowControl(null, null, 0, true, true);
		FlowControl perKey = new FlowControl(null, null, 1, false, true);
		FlowControl keyRate = new FlowControl(null, RateLimit.parse("5/1s"), 0, false, true);
		List<HandlerDefinition> handlers = List.of(flowHandler("ordered", ordered), flowHandler("perKey", perKey),
				flowHandler("keyRate", keyRate));

		ClaimRequest request = ClaimPlanner.plan("w1", 20, 2, handlers, Map.of(), LEASE_UNTIL);

		assertThat(ClaimPlanner.claimedAhead(handlers.get(0))).isTrue();
		assertThat(ClaimPlanner.claimedAhead(handlers.get(1))).isTrue();
		assertThat(ClaimPlanner.claimedAhead(handlers.get(2))).isFalse();
		assertThat(request.limitedTypes()).containsOnly(entry("ordered", 20), entry("perKey", 20), entry("keyRate", 2));
		ClaimRequest ahead = request.ahead(List.of());
		assertThat(ahead.limitedTypes()).containsOnly(entry("ordered", 20), entry("perKey", 20));
		assertThat(ahead.flowControls()).containsOnly(entry("ordered", ordered), entry("perKey", perKey));
		assertThat(ahead.freeNow()).isZero();
	}

	@Test
	void typesWithFlowControlTakeOnlyTheSlotsFreeNowAndNameTheirFlowControl() {
		FlowControl flow = new FlowControl(RateLimit.parse("10/1s"), null, 1, false, true);
		HandlerDefinition limited = new HandlerDefinition("charge", (payload, context) -> null, 0, null, 0, true,
				"charge", 0, flow);
		List<HandlerDefinition> handlers = List.of(handler("mail", 0, 0), limited);

		ClaimRequest request = ClaimPlanner.plan("w1", 20, 2, handlers, Map.of(), LEASE_UNTIL);

		assertThat(ClaimPlanner.claimedAhead(limited)).isFalse();
		assertThat(request.unlimitedTypes()).containsExactly("mail");
		assertThat(request.limitedTypes()).containsOnly(entry("charge", 2));
		assertThat(request.flowControls()).containsOnly(entry("charge", flow));
		assertThat(request.flowControl("mail")).isEqualTo(FlowControl.NONE);
		assertThat(request.ahead(List.of()).limitedTypes()).isEmpty();
		assertThat(request.ahead(List.of()).flowControls()).isEmpty();
		assertThat(request.startingNow().flowControls()).containsOnly(entry("charge", flow));
	}

	@Test
	void aRateLimitedTypeLeftOutOfTheSlotsFreeNowIsNotNamed() {
		FlowControl rated = new FlowControl(RateLimit.parse("10/1s"), null, 0, false, true);
		FlowControl ordered = new FlowControl(null, null, 0, true, true);

		ClaimRequest request = ClaimPlanner.plan("w1", 20, 0,
				List.of(flowHandler("rated", rated), flowHandler("ordered", ordered)), Map.of(), LEASE_UNTIL);

		assertThat(request.limitedTypes()).containsOnly(entry("ordered", 20));
		assertThat(request.flowControls()).containsOnly(entry("ordered", ordered));
	}

	private static ClaimRequest plan(int freeSlots, List<HandlerDefinition> handlers, Map<String, Integer> busy) {
		return ClaimPlanner.plan("w1", freeSlots, freeSlots, handlers, busy, LEASE_UNTIL);
	}

	private static HandlerDefinition flowHandler(String type, FlowControl flow) {
		return new HandlerDefinition(type, (payload, context) -> null, 0, null, 0, true, type, 0, flow);
	}

	private static HandlerDefinition handler(String type, int concurrency, int globalConcurrency) {
		return new HandlerDefinition(type, (payload, context) -> null, 0, Duration.ofMinutes(1), concurrency, true,
				type, globalConcurrency);
	}

}
