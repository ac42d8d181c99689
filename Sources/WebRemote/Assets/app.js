'use strict';
// Fermata web remote: the core (API, session, events, router, toast) and the music stand. views.js has the other pages.
var F = { views: {}, S: null, role: null, route: '' };
(function () {
  var t = null;
  try { t = localStorage.getItem('fermata.theme'); } catch (e) { /* private mode */ }
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
})();

(function () {
  var $ = function (s) { return document.getElementById(s); };
  F.$ = $;

  // h('tag', {attr: value, onclick: fn}, children…): a small element builder
  F.h = function (tag, a) {
    var e = document.createElement(tag), k, v;
    if (a) for (k in a) {
      v = a[k];
      if (v == null || v === false) continue;
      if (typeof v === 'function') e.addEventListener(k.slice(2), v);
      else if (k === 'class') e.className = v;
      else if (k === 'value') e.value = v;
      else if (k === 'style') e.style.cssText = v; // CSSOM, allowed by a strict Content-Security-Policy
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  };
  function add(e, c) {
    if (c == null || c === false) return;
    if (Array.isArray(c)) c.forEach(function (x) { add(e, x); });
    else e.append(c.nodeType ? c : String(c));
  }

  F.time = function (s, tenths) {
    if (s == null || !isFinite(s) || s < 0) s = 0;
    // rounded to the tenth first: 9.96 s was "0:010.0" and 59.96 s "0:60.0"
    if (tenths) s = Math.round(s * 10) / 10;
    var m = Math.floor(s / 60), r = s - m * 60;
    var sec = tenths ? r.toFixed(1) : String(Math.floor(r));
    if (r < 10) sec = '0' + sec;
    if (m >= 60) return Math.floor(m / 60) + ':' + String(m % 60).padStart(2, '0') + ':' + sec;
    return m + ':' + sec;
  };
  F.semis = function (t) {
    t = Math.round((t || 0) * 100) / 100;
    return t > 0 ? '+' + t : t < 0 ? '−' + (-t) : '0';
  };
  F.base = function (f) { f = String(f || ''); return f.slice(f.lastIndexOf('/') + 1); };
  // a network stream (an http(s) URL in the queue or a playlist): shown by its station or its address
  F.isURL = function (f) { return /^https?:\/\//i.test(f || ''); };
  F.host = function (u) { return String(u).replace(/^https?:\/\//i, '').split(/[/?#]/)[0]; };
  F.songTitle = function (s) {
    if (F.isURL(s.file)) return s.title || s.name || F.host(s.file);
    return s.title || F.base(s.file).replace(/\.[^.]+$/, '');
  };

  // Toast: errors and short confirmations, never alert()
  F.toast = function (msg, ok) {
    var t = $('toast'), d = F.h('div', { class: ok ? '' : 'err' }, msg);
    d.addEventListener('click', function () { d.remove(); });
    t.append(d);
    while (t.children.length > 3) t.firstChild.remove();
    setTimeout(function () { d.remove(); }, ok ? 2500 : 6000);
  };

  // The API: every change sends X-Fermata-Request and JSON
  F.api = function (method, path, body) {
    var o = { method: method, credentials: 'same-origin', headers: {} };
    if (method !== 'GET') {
      o.headers['X-Fermata-Request'] = '1';
      o.headers['Content-Type'] = 'application/json';
      if (body !== undefined) o.body = JSON.stringify(body);
    }
    return fetch(path, o).catch(function () {
      throw new Error('The box does not answer');
    }).then(function (r) {
      if (r.status === 204 || r.status === 202) return null;
      return r.json().catch(function () { return null; }).then(function (j) {
        if (r.ok) return j;
        if (r.status === 401 && path !== '/api/login') login();
        throw new Error((j && j.error) || 'Error ' + r.status);
      });
    });
  };
  // run a promise, errors to the toast
  F.run = function (p) { return Promise.resolve(p).catch(function (e) { F.toast(e.message); }); };
  F.act = function (action, value) {
    return F.run(F.api('POST', '/api/control', value === undefined ? { action: action } : { action: action, value: value }));
  };
  // where "insert next" puts things: after the entry playing
  F.nextPos = function () {
    var s = F.S && F.S.song;
    return !s ? 0 : s.pos != null ? s.pos + 1 : undefined;
  };
  F.enqueue = function (what, how) {
    var b = Object.assign({}, what);
    if (how === 'replace') b.replace = true;
    if (how === 'next') b.position = F.nextPos();
    return F.run(F.api('POST', '/api/queue', b).then(function (r) {
      var n = r && r.ids ? r.ids.length : 0;
      F.toast(how === 'replace' ? 'Playing' : (n === 1 ? '1 song' : n + ' songs') + (how === 'next' ? ' next' : ' added'), true);
      return r;
    }));
  };

  // ---- theme toggle: auto → light → dark
  function themeLabel() {
    var t = document.documentElement.dataset.theme;
    $('theme').setAttribute('aria-label', 'Colours: ' + (t || 'automatic') + ' (tap to change)');
    document.querySelectorAll('meta[name=theme-color]').forEach(function (m) {
      if (!m.dataset.c) m.dataset.c = m.content;
      m.content = t === 'dark' ? '#000000' : t === 'light' ? '#f4f4f6' : m.dataset.c;
    });
  }
  function toggleTheme() {
    var d = document.documentElement.dataset, t = d.theme;
    t = !t ? 'light' : t === 'light' ? 'dark' : '';
    if (t) d.theme = t; else delete d.theme;
    try { if (t) localStorage.setItem('fermata.theme', t); else localStorage.removeItem('fermata.theme'); } catch (e) { /* */ }
    themeLabel();
  }

  // ---- session and log-in
  // On the box itself (loopback) no login is needed: the event stream and the status are asked at once, beside the
  // session, instead of after it. Elsewhere they wait for the session (a page without one gets the login form).
  var local = /^(127\.|localhost$|\[::1\]$)/.test(location.hostname);
  function boot() {
    if (local && !es) { openEvents(); status(); }
    F.api('GET', '/api/session').then(function (s) {
      F.session = s;
      if (s.role === 'none') login(s); else start(s.role);
    }).catch(function (e) {
      $('s-title').textContent = e.message;
      $('s-artist').textContent = 'Retrying…';
      setTimeout(boot, 4000);
    });
  }
  function login(s) {
    stopEvents();
    F.role = 'none';
    var msg = $('login-msg');
    var none = !!(s && s.password_set === false);
    $('login-form').classList.toggle('nopw', none);
    if (none) {
      msg.innerHTML = '';
      msg.append('No password is set yet: set a password on the box with ', F.h('code', null, 'fermata web password'), '.');
    } else msg.textContent = "Enter the box's password.";
    $('login').hidden = false;
    if (!s) F.api('GET', '/api/session').then(function (x) { if (x.role === 'none') login(x); }).catch(function () {});
    setTimeout(function () { $('pw').focus(); }, 50);
  }
  function submitLogin(ev) {
    ev.preventDefault();
    var err = $('login-err');
    err.textContent = '';
    F.api('POST', '/api/login', { password: $('pw').value }).then(function (s) {
      $('pw').value = '';
      F.session = s;
      if (s.role === 'none') throw new Error('Not logged in');
      start(s.role);
    }).catch(function (e) { err.textContent = e.message; $('pw').value = ''; $('pw').focus(); });
  }
  function start(role) {
    F.role = role;
    document.body.classList.toggle('guest', role === 'guest');
    $('login').hidden = true;
    if (!es) { openEvents(); status(); }
    route();
    if (S) stand(S);
  }
  // the status from GET /api/status: the stand fills even before (or without) the event stream, whose first status
  // supersedes it
  var streamed = false;
  function status() {
    F.api('GET', '/api/status').then(function (s) { if (!streamed && s) stand(s); }).catch(function () {});
  }
  F.logout = function () {
    F.run(F.api('POST', '/api/logout').then(function () { login(); }));
  };

  // ---- events: one EventSource, no polling
  var es = null, retry = null, wait = 2000, wasDown = false;
  var NAMES = ['status', 'queue', 'playlists', 'library', 'scan', 'input', 'card', 'outputs', 'practice', 'recording'];
  // each event's arrival {t: ms since the epoch, name, state: a status's}, the newest 100: read by
  // Tests/Tools/web-bench.py only
  var arrivals = window.__fermataEvents = [];
  function openEvents() {
    stopEvents();
    streamed = false;
    es = new EventSource('/api/events');
    es.onopen = function () {
      wait = 2000;
      $('down').hidden = true;
      if (wasDown) { wasDown = false; resync(); }
    };
    es.onerror = function () {
      $('down').hidden = false;
      wasDown = true;
      // EventSource reconnects by itself, except after an HTTP error (401, 429…): then look at the session again
      if (es && es.readyState === 2) {
        es = null;
        retry = setTimeout(function () {
          F.api('GET', '/api/session').then(function (s) {
            if (s.role === 'none') login(s); else openEvents();
          }).catch(function () { openEvents(); });
        }, wait);
        wait = Math.min(wait * 2, 30000);
      }
    };
    NAMES.forEach(function (n) {
      es.addEventListener(n, function (e) {
        var t = performance.timeOrigin + performance.now(), d;
        try { d = JSON.parse(e.data); } catch (x) { return; }
        if (arrivals.push({ t: t, name: n, state: n === 'status' ? d.state : undefined }) > 100) arrivals.shift();
        if (n === 'status') streamed = true;
        dispatch(n, d);
      });
    });
  }
  function stopEvents() {
    clearTimeout(retry);
    retry = null;
    if (es) { es.close(); es = null; }
  }
  function dispatch(n, d) {
    if (n === 'status') stand(d);
    for (var k in F.views) {
      var v = F.views[k];
      if (v.ev) try { v.ev(n, d, F.route === k); } catch (e) { console.error(e); }
    }
  }
  // after a gap in the stream: what is shown may be old
  function resync() {
    for (var k in F.views) F.views[k].stale = true;
    var v = F.views[F.route];
    if (v && v.show) v.show();
  }
  // A hidden page (another tab, the phone's screen off) lets its stream go: a browser keeps 6 connections per host,
  // and a 7th tab of the remote would never load. Shown again, it opens a new one (its first event is the status)
  // and looks again at what it shows, since events were missed meanwhile.
  document.addEventListener('visibilitychange', function () {
    if (!F.role || F.role === 'none') return;
    if (document.hidden) {
      if (es || retry) { stopEvents(); wasDown = true; }
    } else if (!es) openEvents();
  });

  // ---- router
  var ROUTES = ['stand', 'library', 'queue', 'practice', 'cards', 'box'];
  function route() {
    if (!F.role || F.role === 'none') return;
    var r = location.hash.slice(1);
    if (ROUTES.indexOf(r) < 0 || F.role === 'guest') r = 'stand';
    var changed = F.route !== r;
    F.route = r;
    ROUTES.forEach(function (x) { $('v-' + x).hidden = x !== r; });
    document.querySelectorAll('#nav a').forEach(function (a) {
      if (a.dataset.r === r) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
    var v = F.views[r];
    if (v && v.show) v.show();
    if (changed) window.scrollTo(0, 0);
    tick();
    wake();
  }
  window.addEventListener('hashchange', route);

  // keep the screen on while the stand is shown (browsers offer it only on https or the box itself)
  var lock = null;
  function wake() {
    var want = F.route === 'stand' && !document.hidden && F.role && F.role !== 'none';
    if (want && !lock && navigator.wakeLock) {
      lock = navigator.wakeLock.request('screen').then(function (l) {
        l.addEventListener('release', function () { lock = null; });
        return l;
      }).catch(function () { lock = null; });
    } else if (!want && lock) {
      lock.then(function (l) { if (l) l.release(); });
      lock = null;
    }
  }
  document.addEventListener('visibilitychange', wake);

  // ---- the music stand
  var S = null, t0 = 0, raf = 0, lastText = '', wraps = 0, chip = null, lastChip = '', P = null;
  // the position heard now, moved on from the last status at the tempo, round the loop as the box plays it (for its
  // passes; `wraps`: how many times it went round since that status, so the pass shown moves on with it)
  function pos(now) {
    var e = S.elapsed || 0, L = S.loop || P;
    wraps = 0;
    if (S.state === 'play') {
      e += (now - t0) / 1000 * (S.stream ? 100 : S.tempo || 100) / 100;
      if (L && L.end > L.start && S.elapsed <= L.end + 0.25 && e >= L.end) {
        var len = L.end - L.start, n = Math.floor((e - L.start) / len);
        if (L.passes != null) n = Math.min(n, Math.max(0, L.passes - (L.pass || 1)));
        wraps = n;
        e -= n * len;
      }
    }
    var d = P ? P.end : S.duration;
    if (d && e > d) e = d;
    return e;
  }
  function frame(now) {
    raf = 0;
    draw(now);
    tick();
  }
  function draw(now) {
    if (!S) return;
    var d = P ? P.end - P.start : S.duration || 0, e = pos(now || performance.now()) - (P ? P.start : 0);
    var f = d ? Math.max(0, Math.min(1, e / d)) : 0;
    if (chip) {
      var c = chip(wraps);
      if (c !== lastChip) { lastChip = c; $('s-sec').textContent = c; }
    }
    $('b-fill').style.transform = 'scaleX(' + f + ')';
    $('b-hd').style.transform = 'translateX(' + (f * 100) + '%)';
    var txt = F.time(e);
    if (txt !== lastText) {
      lastText = txt;
      $('s-el').textContent = txt;
      var bar = $('bar');
      bar.setAttribute('aria-valuenow', Math.floor(e));
      bar.setAttribute('aria-valuetext', S.stream ? txt + ', live' : txt + ' of ' + F.time(d));
    }
  }
  function tick() {
    if (!raf && S && S.state === 'play' && F.route === 'stand' && !document.hidden) raf = requestAnimationFrame(frame);
  }
  document.addEventListener('visibilitychange', function () { if (!document.hidden) { lastText = ''; draw(performance.now()); tick(); } });

  function stand(s) {
    S = F.S = s;
    t0 = performance.now();
    var song = s.song;
    // a queued part of a track (a section in a set list): the bar is the part, the time counted from its start (the
    // box gives the track's position with the part's length); it goes round as many times as its passes say
    // (a part open at its end, "12.000-", runs to the file's end)
    var m = song && !s.loop && /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)?$/.exec(song.range || '');
    var end = m ? (m[2] != null ? +m[2] : s.duration || 0) : 0;
    P = m && end > +m[1] ? { start: +m[1], end: end, passes: null } : null;
    // a network stream: its station as the artist line, the title it sends now as the title; no length, no seeking
    var live = s.stream, d = live ? 0 : P ? P.end - P.start : s.duration || 0;
    var title = !song ? 'Nothing playing' : live ? live.title || live.name || F.host(song.file) : F.songTitle(song);
    $('s-title').textContent = title;
    $('s-artist').textContent = !song ? (F.role === 'owner' ? 'Choose music in the Library' : '')
      : live ? (live.title && live.name ? live.name : F.host(song.file)) : [song.artist, song.album].filter(Boolean).join(' — ');
    document.title = song ? title + ' · Fermata' : 'Fermata';
    var play = $('b-play'), on = s.state === 'play';
    play.classList.toggle('on', on);
    play.setAttribute('aria-label', on ? 'Pause' : 'Play');
    // the section (of the track, or a queued one) or loop, and its passes: "pass 2/4" as it is heard, ∞ for ever
    // (the pass moves on as the position goes round the loop: draw() asks chip() again)
    var sec = $('s-sec'), L = s.loop, x = s.section, cls = '';
    var passes = function (p, n) { return p == null ? ' · ∞' : n ? ' · pass ' + Math.min(n, p) + '/' + p : ' · ×' + p; };
    var name = x ? x.name : song && song.section;
    chip = null;
    if (name) {
      chip = function (w) { return '§\u00a0' + name + passes(L ? L.passes : x ? x.passes : song.passes, L && L.pass && L.pass + w); };
      cls = 'sec';
    } else if (L) {
      chip = function (w) { return 'Loop' + passes(L.passes, L.pass && L.pass + w); };
      cls = 'loop';
    }
    lastChip = chip ? chip(0) : s.loop_a != null ? 'A ' + F.time(s.loop_a) + ' · tap B' : '';
    if (lastChip && !chip) cls = 'loop';
    sec.textContent = lastChip;
    sec.className = 'chip ' + cls;
    $('s-bpm').textContent = s.bpm ? Math.round(s.bpm) + ' BPM' : '';
    var err = $('s-err');
    err.hidden = !s.error;
    err.textContent = s.error || '';
    // the bar: the whole track, the loop or section on it
    var reg = $('b-reg'), R = L || x;
    if (R && d) {
      reg.hidden = false;
      reg.className = x ? 'sec' : '';
      reg.style.left = (100 * R.start / d) + '%';
      reg.style.width = Math.max(0.5, 100 * (R.end - R.start) / d) + '%';
      $('s-loop').textContent = F.time(R.start, true) + ' – ' + F.time(R.end, true);
    } else {
      reg.hidden = true;
      $('s-loop').textContent = P ? F.time(P.start, true) + ' – ' + F.time(P.end, true) : '';
    }
    var a = $('b-a');
    a.hidden = !(s.loop_a != null && d && !L && !P);
    if (!a.hidden) a.style.left = (100 * s.loop_a / d) + '%';
    $('s-dur').textContent = live ? 'live' : F.time(d);
    var bar = $('bar');
    bar.classList.toggle('live', !!live);
    bar.setAttribute('aria-valuemax', Math.floor(d));
    if (live) bar.setAttribute('aria-disabled', 'true'); else bar.removeAttribute('aria-disabled');
    // steppers and toggles
    $('s-tempo').firstChild.textContent = s.tempo + '%';
    $('s-key').firstChild.textContent = F.semis(s.transpose);
    $('s-vol').firstChild.textContent = s.volume < 0 ? '–' : s.volume;
    $('b-met').setAttribute('aria-pressed', !!s.metronome);
    $('b-cnt').setAttribute('aria-pressed', !!s.count_in);
    $('b-trn').setAttribute('aria-pressed', !!s.trainer);
    $('b-trn').disabled = !s.trainer && !L;
    $('s-trn').textContent = s.trainer ? (s.pass_tempo ? 'last ' + s.pass_tempo + '%' : 'climbing') : 'trainer';
    $('b-tag').disabled = !s.trainer;
    sleepAt = t0;
    sleepShow();
    var has = !!song;
    // a stream has no loop (the box refuses one)
    $('b-la').disabled = $('b-ag').disabled = !!live;
    $('b-lb').disabled = !has || !!live || (s.loop_a == null && !L);
    $('b-lc').disabled = !L && s.loop_a == null;
    $('b-ss').disabled = !L;
    $('b-sp').disabled = $('b-sn').disabled = !s.sections;
    lastText = '';
    draw(t0);
    tick();
    if (!F.ready) { F.ready = true; performance.mark('fermata-ready'); } // first status shown (web-bench.py)
  }

  // the sleep timer: a chip counting down (between status events too) and the pad's button, 30 min or off
  var sleepAt = 0;
  function sleepShow() {
    var left = S && S.sleep ? Math.max(0, S.sleep - (performance.now() - sleepAt) / 1000) : 0, b = $('b-sleep');
    $('s-sleep').textContent = S && S.sleep ? '☾ ' + (left < 60 ? Math.ceil(left) + ' s' : Math.ceil(left / 60) + ' min') : '';
    b.setAttribute('aria-pressed', !!(S && S.sleep));
    b.lastChild.textContent = S && S.sleep ? 'off' : '30 min';
    b.setAttribute('aria-label', S && S.sleep ? 'Sleep timer on: tap to turn it off' : 'Sleep timer: the music fades out in 30 minutes');
  }
  setInterval(function () { if (S && S.sleep && !document.hidden) sleepShow(); }, 5000);

  function padTap(e) {
    var b = e.target.closest('button[data-a]');
    if (!b || b.disabled) return;
    var a = b.dataset.a, v = b.dataset.v;
    if (a === 'metronome') v = S && S.metronome ? 0 : 1;
    else if (a === 'count_in') v = S && S.count_in ? 0 : 4;
    else if (a === 'sleep') v = S && S.sleep ? 0 : 1800;
    F.act(a, v === undefined ? undefined : Number(v));
  }
  function seekTap(e) {
    var d = P ? P.end - P.start : S && S.duration;
    if (F.role !== 'owner' || !S || !d || S.stream) return;
    var r = $('bar').getBoundingClientRect(), f = (e.clientX - r.left) / r.width;
    f = Math.max(0, Math.min(1, f));
    var to = Math.round(((P ? P.start : 0) + f * d) * 10) / 10;
    S.elapsed = to; t0 = performance.now(); lastText = ''; draw(t0);
    F.act('seek', to);
  }
  function seekKey(e) {
    if (F.role !== 'owner' || (S && S.stream)) return;
    var k = { ArrowLeft: -5, ArrowRight: 5, PageDown: -30, PageUp: 30 }[e.key];
    if (k) { e.preventDefault(); F.act('seek_by', k); }
  }

  document.addEventListener('DOMContentLoaded', function () {
    themeLabel();
    $('theme').addEventListener('click', toggleTheme);
    $('pad').addEventListener('click', padTap);
    $('bar').addEventListener('click', seekTap);
    $('bar').addEventListener('keydown', seekKey);
    $('login-form').addEventListener('submit', submitLogin);
    boot();
  });
})();
