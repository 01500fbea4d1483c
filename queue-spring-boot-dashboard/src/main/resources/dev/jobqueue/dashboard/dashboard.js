// jobqueue dashboard: keeps an open page up to date without reloading it. Every few seconds it fetches the
// same address again and swaps the content of #live when it changed, keeping the keyboard focus where it was.
(function () {
	'use strict';

	var interval = Number(document.body.getAttribute('data-refresh-ms'));
	if (!interval) {
		return; // confirmations and pages that say no stay as they are
	}
	var busy = false;

	function selectorOf(element) {
		if (element.id) {
			return '#' + CSS.escape(element.id);
		}
		if (element.getAttribute && element.getAttribute('href')) {
			return 'a[href="' + CSS.escape(element.getAttribute('href')) + '"]';
		}
		return null;
	}

	function refresh() {
		var live = document.getElementById('live');
		if (busy || document.hidden || !live) {
			return;
		}
		busy = true;
		fetch(window.location.href, { headers: { 'X-Jobqueue-Refresh': '1' }, cache: 'no-store',
				credentials: 'same-origin', redirect: 'error' })
			.then(function (response) {
				if (!response.ok) {
					throw new Error('HTTP ' + response.status);
				}
				return response.text();
			})
			.then(function (text) {
				var page = new DOMParser().parseFromString(text, 'text/html');
				var fresh = page.getElementById('live');
				var updated = page.getElementById('updated-at');
				if (!fresh) {
					throw new Error('no content');
				}
				if (fresh.innerHTML !== live.innerHTML) {
					var active = document.activeElement;
					var selector = (active && live.contains(active)) ? selectorOf(active) : null;
					live.innerHTML = fresh.innerHTML;
					var again = selector ? live.querySelector(selector) : null;
					if (again) {
						again.focus();
					}
				}
				var shown = document.getElementById('updated-at');
				if (updated && shown) {
					shown.textContent = updated.textContent;
					shown.setAttribute('datetime', updated.getAttribute('datetime'));
				}
				document.body.classList.remove('stale');
			})
			.catch(function () {
				// The server is away or answered otherwise: keep what is shown, marked as old.
				document.body.classList.add('stale');
			})
			.finally(function () {
				busy = false;
			});
	}

	window.setInterval(refresh, interval);
	document.addEventListener('visibilitychange', refresh);
})();
