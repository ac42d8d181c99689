'use strict';
// Fermata web remote: the pages other than the stand (library, queue, practice, cards, box).
(function () {
  var h = F.h, api = F.api, run = F.run, toast = F.toast, $ = F.$;
  var enc = encodeURIComponent;
  var qs = function (o) {
    var p = [];
    for (var k in o) if (o[k] != null && o[k] !== '') p.push(k + '=' + enc(o[k]));
    return p.length ? '?' + p.join('&') : '';
  };
  var fill = function (el) { el.textContent = ''; for (var i = 1; i < arguments.length; i++) if (arguments[i]) el.append(arguments[i]); return el; };
  var btn = function (text, label, fn, cls) { return h('button', { type: 'button', class: 'btn sm ' + (cls || ''), 'aria-label': label, onclick: fn }, text); };
  var dur = function (s) {
    s = Math.round(s || 0);
    if (s < 60) return s + ' s';
    var m = Math.round(s / 60);
    return m < 60 ? m + ' min' : Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' min';
  };
  var debounce = function (fn, ms) { var t; return function () { var a = arguments; clearTimeout(t); t = setTimeout(function () { fn.apply(null, a); }, ms); }; };
  // an in-page confirmation (no confirm())
  var confirmIn = function (slot, text, yes, fn) {
    var box = h('div', { class: 'confirm', role: 'alertdialog', 'aria-label': text },
      h('span', { class: 'grow' }, text),
      btn('Cancel', 'Cancel', function () { box.remove(); }),
      btn(yes, yes, function () { box.remove(); fn(); }, 'dan'));
    slot.querySelectorAll('.confirm').forEach(function (c) { c.remove(); });
    slot.append(box);
    box.querySelector('.dan').focus();
  };
  // seconds → "1:02.25" (to the hundredth, no trailing zeros), and back: "1:02.5" or "62.5" → seconds
  var exact = function (t) {
    var c = Math.round(t * 100), m = Math.floor(c / 6000), r = (c - m * 6000) / 100;
    return m + ':' + (r < 10 ? '0' : '') + r;
  };
  var secs = function (v) {
    v = String(v).trim();
    if (!v) return null;
    var p = v.split(':'), s = 0;
    for (var i = 0; i < p.length; i++) s = s * 60 + Number(p[i]);
    return isFinite(s) ? s : NaN;
  };

  // A list loaded a page at a time as it scrolls into view.
  // load(offset, limit) → Promise of {items, count, total|null}
  function Pager(load, row, empty) {
    var ul = h('ul', { class: 'list' }), more = h('li', { class: 'more' }, 'Loading…');
    ul.append(more);
    var off = 0, done = false, busy = false, gen = 0;
    var io = new IntersectionObserver(function (es) { if (es[0].isIntersecting) next(); }, { rootMargin: '500px' });
    io.observe(more);
    function near() { return ul.offsetParent && more.getBoundingClientRect().top < innerHeight + 500; }
    function got(r, limit, replace) {
      if (replace) while (ul.firstChild !== more) ul.firstChild.remove();
      r.items.forEach(function (it, i) { ul.insertBefore(row(it, off + i), more); });
      off += r.count;
      done = r.count === 0 || (r.total != null ? off >= r.total : r.count < limit);
      more.textContent = done ? (off ? '' : empty || 'Nothing here') : 'Loading…';
      more.hidden = done && off > 0;
    }
    function next() {
      if (busy || done) return;
      busy = true;
      var g = gen;
      load(off, 100).then(function (r) { if (g === gen) got(r, 100); })
        .catch(function (e) { if (g === gen) { done = true; more.textContent = e.message; } })
        .then(function () { if (g === gen) { busy = false; if (!done && near()) next(); } });
    }
    return {
      el: ul,
      // load again what was loaded (the list in place, no jump)
      reload: function () {
        var g = ++gen, n = Math.min(500, Math.max(100, off));
        busy = true;
        return load(0, n).then(function (r) {
          if (g !== gen) return;
          off = 0; got(r, n, true); busy = false;
          if (!done && near()) next();
        }).catch(function (e) { if (g === gen) { busy = false; toast(e.message); } });
      },
      stop: function () { gen++; io.disconnect(); }
    };
  }

  // the three ways to queue something
  function acts(what, name) {
    return h('div', { class: 'acts' },
      btn('Play', 'Play now: ' + name, function () { F.enqueue(what, 'replace'); }),
      btn('Add', 'Add to the queue: ' + name, function () { F.enqueue(what, 'add'); }),
      btn('Next', 'Play next: ' + name, function () { F.enqueue(what, 'next'); }));
  }
  var songLine = function (s) {
    if (F.isURL(s.file)) {
      var at = s.file.replace(/^https?:\/\//i, '');
      return ['stream', s.title && s.name ? s.name : null, at.length > 80 ? at.slice(0, 79) + '…' : at].filter(Boolean).join(' · ');
    }
    return [s.artist, s.album, s.duration ? F.time(s.duration) : null].filter(Boolean).join(' · ');
  };

  // ================= Library
  var lib = F.views.library = { stack: [], tab: 'artists', q: '' };
  var libUI = null;
  function libBuild() {
    var v = $('v-library');
    var search = h('input', { type: 'search', class: 'grow', placeholder: 'Search titles, artists, albums', 'aria-label': 'Search the library', enterkeyhint: 'search' });
    var tabs = h('div', { class: 'seg', role: 'group', 'aria-label': 'Browse by' });
    [['artists', 'Artists'], ['albums', 'Albums'], ['folders', 'Folders']].forEach(function (t) {
      tabs.append(h('button', { type: 'button', 'data-t': t[0], onclick: function () { search.value = ''; lib.q = ''; libTab(t[0]); } }, t[1]));
    });
    var file = h('input', { type: 'file', accept: 'audio/*', multiple: true, id: 'up-file', 'aria-label': 'Choose audio files to upload' });
    file.style.cssText = 'position:absolute;width:1px;height:1px;opacity:0';
    var upBtn = h('label', { class: 'btn up', for: 'up-file', hidden: true }, 'Upload…', file);
    var up = h('ul', { class: 'list', id: 'up-list' });
    file.addEventListener('change', function () { upload(Array.from(file.files)); file.value = ''; });
    var crumb = h('div', { class: 'crumb' }), body = h('div');
    v.append(h('div', { class: 'bar-row' }, search), h('div', { class: 'bar-row' }, tabs, upBtn), up, crumb, body);
    search.addEventListener('input', debounce(function () {
      var q = search.value.trim();
      if (q === lib.q) return;
      lib.q = q;
      libRender();
    }, 250));
    libUI = { search: search, tabs: tabs, up: upBtn, crumb: crumb, body: body, pager: null };
  }
  function libTab(t) {
    lib.tab = t;
    lib.stack = [{ kind: t, path: '' }];
    libRender();
  }
  function libPush(level) { lib.stack.push(level); libRender(); window.scrollTo(0, 0); }
  function libRender() {
    var u = libUI, L = lib.stack[lib.stack.length - 1];
    u.tabs.querySelectorAll('button').forEach(function (b) { b.setAttribute('aria-pressed', !lib.q && b.dataset.t === lib.tab); });
    if (u.pager) u.pager.stop();
    var load, row = songRow, title = '', what = null, empty;
    if (lib.q) {
      title = 'Found for “' + lib.q + '”';
      empty = 'Nothing found';
      load = function (o, n) {
        return api('GET', '/api/library/search' + qs({ q: lib.q, offset: o, limit: n })).then(function (r) {
          return { items: r.songs, count: r.songs.length, total: r.total };
        });
      };
    } else if (L.kind === 'artists') {
      load = function (o, n) {
        return api('GET', '/api/library/artists' + qs({ offset: o, limit: n })).then(function (r) { return { items: r.items, count: r.items.length, total: r.total }; });
      };
      row = artistRow;
    } else if (L.kind === 'albums') {
      title = L.artist || '';
      load = function (o, n) {
        return api('GET', '/api/library/albums' + qs({ artist: L.artist, offset: o, limit: n })).then(function (r) { return { items: r.items, count: r.items.length, total: r.total }; });
      };
      // an artist's albums: theirs, even where the files name no album artist (another's album of that name stays out)
      row = function (a) { return albumRow(L.artist && !a.artist ? { album: a.album, artist: L.artist } : a); };
    } else if (L.kind === 'album') {
      title = L.album + (L.artist ? ' — ' + L.artist : '');
      what = { album: L.album, artist: L.artist || undefined };
      load = function (o) {
        if (o) return Promise.resolve({ items: [], count: 0, total: 0 });
        return api('GET', '/api/library/album' + qs({ album: L.album, artist: L.artist })).then(function (r) {
          return { items: r.songs, count: r.songs.length, total: r.songs.length };
        });
      };
    } else {
      title = L.path || 'Music folder';
      if (L.path) what = { uris: [L.path] };
      load = function (o, n) {
        return api('GET', '/api/library/folder' + qs({ path: L.path, offset: o, limit: n })).then(function (r) {
          // folders come as full paths from the music folder's root
          var items = r.folders.map(function (f) { return { folder: f }; }).concat(r.songs);
          return { items: items, count: items.length, total: r.total };
        });
      };
      row = function (it) { return it.folder != null ? folderRow(it.folder) : songRow(it); };
    }
    var back = lib.stack.length > 1 && !lib.q ? btn('‹ Back', 'Back', function () { lib.stack.pop(); libRender(); }) : null;
    fill(u.crumb, back, title ? h('b', null, title) : null, what ? acts(what, title) : null);
    u.crumb.hidden = !back && !title;
    u.pager = Pager(load, row, empty);
    fill(u.body, u.pager.el);
  }
  function artistRow(name) {
    return h('li', null, h('button', { type: 'button', class: 'nm', onclick: function () { libPush({ kind: 'albums', artist: name }); } },
      h('b', null, name || '(no artist)'), h('span', null, 'Artist ›')));
  }
  function albumRow(a) {
    return h('li', null,
      h('button', { type: 'button', class: 'nm', onclick: function () { libPush({ kind: 'album', album: a.album, artist: a.artist }); } },
        h('b', null, a.album || '(no album)'), h('span', null, (a.artist || '') + ' ›')),
      acts({ album: a.album, artist: a.artist || undefined }, a.album));
  }
  function folderRow(path) {
    return h('li', null,
      h('button', { type: 'button', class: 'nm', onclick: function () { libPush({ kind: 'folder', path: path }); } },
        h('b', null, F.base(path)), h('span', null, 'Folder ›')),
      acts({ uris: [path] }, F.base(path)));
  }
  function songRow(s) {
    var t = F.songTitle(s);
    return h('li', null, h('div', { class: 'nm' }, h('b', null, t), h('span', null, songLine(s))), acts({ uris: [s.file] }, t));
  }
  // upload: one file after the other, a bar each
  var upQueue = [], upBusy = false;
  function upload(files) {
    files.forEach(function (f) {
      var bar = h('i'), prog = h('div', { class: 'prog', role: 'progressbar', 'aria-label': 'Upload of ' + f.name, 'aria-valuemin': 0, 'aria-valuemax': 100 }, bar);
      var note = h('span', { class: 'mut' }, 'waiting');
      $('up-list').append(h('li', null, h('b', { class: 'grow' }, f.name), prog, note));
      upQueue.push({ f: f, bar: bar, prog: prog, note: note });
    });
    upNext();
  }
  function upNext() {
    if (upBusy || !upQueue.length) return;
    upBusy = true;
    var u = upQueue.shift(), x = new XMLHttpRequest();
    x.open('PUT', '/api/upload/' + enc(u.f.name));
    x.setRequestHeader('X-Fermata-Request', '1');
    x.setRequestHeader('Content-Type', 'application/octet-stream');
    x.upload.onprogress = function (e) {
      if (!e.lengthComputable) return;
      var p = Math.round(100 * e.loaded / e.total);
      u.bar.style.width = p + '%';
      u.prog.setAttribute('aria-valuenow', p);
      u.note.textContent = p + '%';
    };
    var end = function (ok, msg) {
      u.bar.style.width = '100%';
      u.prog.classList.toggle('bad', !ok);
      u.note.textContent = msg;
      if (!ok) toast(u.f.name + ': ' + msg);
      upBusy = false;
      upNext();
    };
    x.onload = function () {
      var j = null;
      try { j = JSON.parse(x.responseText); } catch (e) { /* */ }
      if (x.status === 201) end(true, 'stored');
      else end(false, (j && j.error) || 'error ' + x.status);
    };
    x.onerror = function () { end(false, 'the box does not answer'); };
    u.note.textContent = '0%';
    x.send(u.f);
  }
  lib.show = function () {
    if (!libUI) { libBuild(); libTab('artists'); } else if (lib.stale) libRender();
    lib.stale = false;
    api('GET', '/api/box').then(function (b) { libUI.up.hidden = !b.upload; }).catch(function () { libUI.up.hidden = true; });
  };
  lib.ev = function (n, d, vis) {
    if (n !== 'library' || !libUI) return;
    if (vis) libUI.pager.reload(); else lib.stale = true;
  };

  // ================= Queue
  var Q = F.views.queue = {};
  var qUI = null, qCur = null;
  var PRIOS = [0, 50, 100, 255];
  function qBuild() {
    var v = $('v-queue');
    var slot = h('div');
    var count = h('span', { class: 'mut' });
    v.append(h('h2', null, 'Queue ', count),
      h('div', { class: 'bar-row' },
        btn('Save as playlist…', 'Save the queue as a playlist', function () { qSave(slot); }),
        btn('Clear…', 'Clear the queue', function () {
          confirmIn(slot, 'Clear the whole queue?', 'Clear', function () { run(api('DELETE', '/api/queue')); });
        }, 'dan')),
      slot, radio());
    var pager = Pager(function (o, n) {
      return api('GET', '/api/queue' + qs({ offset: o, limit: n })).then(function (r) {
        qCur = r.current != null ? r.current : qCur;
        count.textContent = '(' + r.length + ')';
        return { items: r.entries, count: r.entries.length, total: r.length };
      });
    }, qRow, 'The queue is empty: choose music in the Library');
    var pl = h('ul', { class: 'list' }), plSlot = h('div');
    v.append(pager.el, h('h2', null, 'Playlists'), plSlot, pl);
    qUI = { pager: pager, pl: pl, plSlot: plSlot, count: count };
  }
  // a radio station or any http(s) stream, by its address: played now or added (the box checks it again)
  function radio() {
    var url = h('input', { type: 'url', class: 'grow', id: 'radio-url', maxlength: 2048, placeholder: 'https://radio.example/live', inputmode: 'url',
      autocomplete: 'off', 'aria-label': 'Radio or stream URL' });
    var go = function (how) {
      var u = url.value.trim();
      if (!/^https?:\/\/[^\s/?#]+[^\s]*$/i.test(u)) { toast('A stream URL starts with http:// or https:// and has no spaces'); return url.focus(); }
      if (new TextEncoder().encode(u).length > 2048) return toast('A stream URL is at most 2048 bytes');
      F.enqueue({ uris: [u] }, how).then(function (r) { if (r) url.value = ''; });
    };
    var f = h('form', { class: 'bar-row', 'aria-label': 'Radio or stream URL' },
      h('label', { for: 'radio-url', class: 'mut', style: 'flex-basis:100%' }, 'Radio / stream URL'), url,
      h('button', { type: 'submit', class: 'btn sm pri', 'aria-label': 'Play the stream now' }, 'Play now'),
      btn('Add', 'Add the stream to the queue', function () { go('add'); }));
    f.addEventListener('submit', function (e) { e.preventDefault(); go('replace'); });
    return f;
  }
  function qSave(slot) {
    var name = h('input', { type: 'text', class: 'grow', maxlength: 255, placeholder: 'Playlist name', 'aria-label': 'Playlist name', enterkeyhint: 'done' });
    var f = h('form', { class: 'confirm', style: 'border-color:var(--ac)' }, name,
      btn('Cancel', 'Cancel', function () { f.remove(); }),
      h('button', { type: 'submit', class: 'btn sm pri' }, 'Save'));
    f.addEventListener('submit', function (e) {
      e.preventDefault();
      var n = name.value.trim();
      if (!n) return name.focus();
      run(api('POST', '/api/playlists', { name: n }).then(function () { f.remove(); toast('Saved as “' + n + '”', true); }));
    });
    slot.querySelectorAll('.confirm').forEach(function (c) { c.remove(); });
    slot.append(f);
    name.focus();
  }
  function qRow(e, i) {
    var pos = e.pos != null ? e.pos : i, t = F.songTitle(e);
    var extra = [];
    if (e.section) extra.push('§\u00a0' + e.section + (e.passes ? ' ×' + e.passes : ' ∞') + (e.tempo ? ' at ' + e.tempo + '%' : ''));
    else if (e.range) extra.push('part ' + e.range);
    var sel = h('select', { 'aria-label': 'Priority of ' + t, title: 'Priority' });
    var ps = PRIOS.indexOf(e.priority || 0) < 0 ? PRIOS.concat(e.priority).sort(function (a, b) { return a - b; }) : PRIOS;
    ps.forEach(function (p) { sel.append(h('option', { value: p }, p === 0 ? 'prio 0' : 'prio ' + p)); });
    sel.value = e.priority || 0;
    sel.addEventListener('change', function () { run(api('POST', '/api/queue/' + e.id + '/priority', { priority: Number(sel.value) })); });
    var li = h('li', { 'data-id': e.id, class: e.id === qCur ? 'cur' : '' },
      h('div', { class: 'nm' }, h('b', null, (pos + 1) + '. ' + t),
        h('span', null, [songLine(e)].concat(extra).filter(Boolean).join(' · '))),
      h('div', { class: 'acts' },
        btn('Play', 'Play ' + t, function () { run(api('POST', '/api/queue/' + e.id + '/play')); }),
        btn('↑', 'Move up: ' + t, function () { if (pos > 0) run(api('POST', '/api/queue/' + e.id + '/move', { to: pos - 1 })); }),
        btn('↓', 'Move down: ' + t, function () { run(api('POST', '/api/queue/' + e.id + '/move', { to: pos + 1 })); }),
        sel,
        btn('✕', 'Remove ' + t, function () { run(api('DELETE', '/api/queue/' + e.id)); }, 'dan')));
    if (e.id === qCur) li.setAttribute('aria-current', 'true');
    return li;
  }
  function qMark() {
    if (!qUI) return;
    qUI.pager.el.querySelectorAll('li[data-id]').forEach(function (li) {
      var on = Number(li.dataset.id) === qCur;
      li.classList.toggle('cur', on);
      if (on) li.setAttribute('aria-current', 'true'); else li.removeAttribute('aria-current');
    });
  }
  function plLoad() {
    return run(api('GET', '/api/playlists').then(function (r) {
      fill(qUI.pl);
      if (!r.playlists.length) qUI.pl.append(h('li', { class: 'more' }, 'No playlists yet'));
      r.playlists.forEach(function (p) {
        qUI.pl.append(h('li', null,
          h('div', { class: 'nm' }, h('b', null, p.name), h('span', null, p.modified ? 'saved ' + p.modified.replace('T', ' ').slice(0, 16) : '')),
          h('div', { class: 'acts' },
            btn('Load', 'Load (replace the queue with) ' + p.name, function () { F.enqueue({ playlist: p.name }, 'replace'); }),
            btn('Add', 'Add to the queue: ' + p.name, function () { F.enqueue({ playlist: p.name }, 'add'); }),
            btn('Delete…', 'Delete the playlist ' + p.name, function () {
              confirmIn(qUI.plSlot, 'Delete the playlist “' + p.name + '”?', 'Delete', function () {
                run(api('DELETE', '/api/playlists/' + enc(p.name)));
              });
            }, 'dan'))));
      });
    }));
  }
  Q.show = function () {
    if (!qUI) { qBuild(); plLoad(); }
    else if (Q.stale) { qUI.pager.reload(); plLoad(); }
    Q.stale = false;
  };
  Q.ev = function (n, d, vis) {
    if (n === 'status') {
      var id = d.song && d.song.id != null ? d.song.id : null;
      if (id !== qCur) { qCur = id; qMark(); }
      return;
    }
    if (!qUI || (n !== 'queue' && n !== 'playlists')) return;
    if (!vis) { Q.stale = true; return; }
    if (n === 'queue') qUI.pager.reload(); else plLoad();
  };

  // ================= Practice
  var P = F.views.practice = { days: 7 };
  var pUI = null, secKey = '';
  function pBuild() {
    var v = $('v-practice');
    var seg = h('div', { class: 'seg', role: 'group', 'aria-label': 'Period' });
    [7, 30].forEach(function (n) {
      seg.append(h('button', { type: 'button', 'data-d': n, onclick: function () { P.days = n; pStats(); } }, n + ' days'));
    });
    var csv = h('a', { class: 'btn sm', download: 'practice.csv' }, 'CSV');
    var total = h('p', { class: 'mut' }), chart = h('div'), tracks = h('div');
    var secTitle = h('span'), secList = h('ul', { class: 'list' }), secSlot = h('div');
    var name = h('input', { type: 'text', class: 'grow', maxlength: 64, placeholder: 'Name (optional)', 'aria-label': 'Name of the new section' });
    var saveBtn = h('button', { type: 'submit', class: 'btn pri' }, 'Save the loop as a section');
    var form = h('form', { class: 'bar-row' }, name, saveBtn);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var b = {};
      if (name.value.trim()) b.name = name.value.trim();
      run(api('POST', '/api/sections', b).then(function (r) { name.value = ''; secShow(r); toast('Section saved', true); }));
    });
    // recording yourself: the toggle, what it does in words, the takes of the track playing
    var recBtn = h('button', { type: 'button', id: 'rec-toggle', class: 'btn rec', 'aria-pressed': 'false', onclick: recToggle }, '● Record');
    var recSay = h('p', { id: 'rec-say', class: 'rec-say', role: 'status', 'aria-live': 'polite' });
    var takeTitle = h('span'), takeList = h('div', { id: 'rec-takes' }), takeSlot = h('div');
    // how loud the take is against the original when played Together (playtake ID balance TAKE%)
    var balance = h('input', { type: 'range', id: 'take-balance', min: '0', max: '100', step: '5', value: '50',
      'aria-label': 'Balance of a take played together with the original: the take\'s share in percent' });
    var balanceSay = h('output', { id: 'take-balance-say', for: 'take-balance' });
    var sayBalance = function () {
      var t = Number(balance.value);
      balanceSay.textContent = t === 0 ? 'Together: the original alone' : t === 100 ? 'Together: your take alone'
        : t === 50 ? 'Together: take and original equally' : 'Together: balance ' + t + ' % towards your take';
    };
    balance.addEventListener('input', sayBalance);
    sayBalance();
    v.append(h('h2', null, 'Practice'), h('div', { class: 'bar-row' }, seg, csv), total, chart,
      h('h3', null, 'By track and section'), tracks,
      h('h2', null, 'Sections ', secTitle), secSlot, secList, form,
      h('h2', { id: 'rec' }, 'Recording yourself'), h('div', { class: 'rec-row' }, recBtn, recSay),
      h('h3', null, 'Takes ', takeTitle), h('div', { class: 'bal-row' }, balanceSay, balance), takeSlot, takeList);
    pUI = { seg: seg, csv: csv, total: total, chart: chart, tracks: tracks, secTitle: secTitle, secList: secList, secSlot: secSlot, saveBtn: saveBtn,
      recBtn: recBtn, recSay: recSay, takeTitle: takeTitle, takeList: takeList, takeSlot: takeSlot, balance: balance, sections: [] };
  }

  // ---- recording: GET/POST /api/recording, GET /api/takes, DELETE /api/takes/{id}, POST /api/takes/{id}/play
  var REC = null, takeFile = null;
  var PHASES = {
    off: 'Off.', waiting: 'On: waiting for a loop or a section to play.', capturing: 'Recording: each pass of the loop is a take.',
    measuring: 'Measuring the round trip (fermata audio latency)…'
  };
  function recShow(r) {
    REC = r;
    var on = !!r.on;
    pUI.recBtn.setAttribute('aria-pressed', String(on));
    pUI.recBtn.textContent = on ? '■ Stop recording' : '● Record';
    pUI.recBtn.setAttribute('aria-label', on ? 'Recording is on: tap to turn it off' : 'Record yourself: tap to turn recording on');
    var say = [];
    if (!r.device) say.push(h('span', { class: 'rec-err' }, 'No capture device configured: set record.device in fermata.toml (arecord -L lists them).'));
    else say.push(h('span', null, (PHASES[r.phase] || r.phase) + (r.phase === 'capturing' && r.rate ? ' ' + (r.rate / 1000) + ' kHz.' : '')));
    if (r.error) say.push(h('span', { class: 'rec-err' }, 'Last problem: ' + r.error));
    if (r.device && r.latency_ms == null && on) say.push(h('span', { class: 'mut' }, 'The round trip is not measured yet: takes are not moved by it (fermata audio latency).'));
    fill.apply(null, [pUI.recSay].concat(say));
  }
  function recLoad() {
    return api('GET', '/api/recording').then(recShow).catch(function (e) { fill(pUI.recSay, h('span', { class: 'rec-err' }, e.message)); });
  }
  function recToggle() {
    var on = !(REC && REC.on);
    pUI.recBtn.disabled = true;
    api('POST', '/api/recording', { on: on }).then(recShow).catch(function (e) {
      // the refusal in words, where it stays beside the toggle (not also in a toast over the takes)
      fill(pUI.recSay, h('span', { class: 'rec-err' }, 'Cannot record: ' + e.message));
    }).then(function () { pUI.recBtn.disabled = false; });
  }
  function when(t) {
    var d = new Date(t * 1000);
    return d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' }) + ' ' + d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  var near = function (a, b) { return Math.abs(a - b) < 0.002; };
  // the name of a loop: the section of the track with those ends, or its times
  function loopName(a, b) {
    var s = pUI.sections.filter(function (x) { return near(x.start, a) && near(x.end, b); })[0];
    return s ? '§ ' + s.name : 'Loop ' + F.time(a, true) + ' – ' + F.time(b, true);
  }
  // a take playing (Play, Alternate) is a file of the state folder's takes/: the list stays the track's
  var isTake = function (f) { return /(^|\/)takes\/take-\d+\.flac$/.test(f || ''); };
  function takesLoad() {
    var S = F.S, song = S && S.song;
    if (!(song && isTake(song.file) && takeFile)) {
      takeFile = song && !S.stream ? song.file : null;
      pUI.takeTitle.textContent = song ? 'of “' + F.songTitle(song) + '”' : '';
    }
    if (!takeFile) { fill(pUI.takeList, h('p', { class: 'mut' }, 'Nothing is playing.')); return Promise.resolve(); }
    var file = takeFile;
    return api('GET', '/api/takes' + qs({ path: file, limit: 500 })).then(function (r) {
      if (file === takeFile) takesShow(r.takes);
    }).catch(function (e) { fill(pUI.takeList, h('p', { class: 'rec-err' }, e.message)); });
  }
  function takesShow(takes) {
    fill(pUI.takeList);
    if (!takes.length) {
      pUI.takeList.append(h('p', { class: 'mut' }, 'No takes of this track yet: turn Record on, then play a loop or a section and play along; each pass is a take.'));
      return;
    }
    // one group per loop or section, the one playing now first
    var S = F.S || {}, cur = S.section || S.loop, groups = [], by = {};
    takes.forEach(function (t) {
      var k = t.loop_start.toFixed(3) + '-' + t.loop_end.toFixed(3);
      if (!by[k]) { by[k] = { a: t.loop_start, b: t.loop_end, takes: [] }; groups.push(by[k]); }
      by[k].takes.push(t);
    });
    var isCur = function (g) { return cur && near(g.a, cur.start) && near(g.b, cur.end); };
    groups.sort(function (x, y) { return (isCur(y) ? 1 : 0) - (isCur(x) ? 1 : 0); });
    groups.forEach(function (g) {
      var ul = h('ul', { class: 'list takes' });
      g.takes.forEach(function (t) { ul.append(takeRow(t)); });
      pUI.takeList.append(h('h4', { class: isCur(g) ? 'cur' : '' }, loopName(g.a, g.b) + (isCur(g) ? ' (playing now)' : '')), ul);
    });
  }
  function takeRow(t) {
    var what = 'take ' + t.id + ' (pass ' + t.pass + ')';
    var tempo = Math.round(t.tempo * 10) / 10;
    return h('li', { 'data-take': t.id },
      h('div', { class: 'nm' }, h('b', null, when(t.date)),
        h('span', null, 'pass ' + t.pass + ' · ' + tempo + ' % · ' + F.time(t.length, true))),
      h('div', { class: 'acts' },
        btn('▶ Play', 'Play ' + what + ' alone', function () {
          run(api('POST', '/api/takes/' + t.id + '/play', { mode: 'alone' }).then(function () { toast('Playing ' + what, true); }));
        }, 'big'),
        btn('⇄ Alternate', 'Alternate the original and ' + what, function () {
          run(api('POST', '/api/takes/' + t.id + '/play', { mode: 'alternate', rounds: 2 }).then(function () { toast('Original, then ' + what + ', twice', true); }));
        }, 'big'),
        btn('⊕ Together', 'Play the original with ' + what + ' over it', function () {
          var share = Number(pUI.balance.value);
          run(api('POST', '/api/takes/' + t.id + '/play', { mode: 'balance', take: share, rounds: 2 }).then(function () {
            toast('The original with ' + what + ' over it (take ' + share + ' %), twice', true);
          }));
        }, 'big'),
        btn('✕', 'Delete ' + what, function () {
          confirmIn(pUI.takeSlot, 'Delete ' + what + ' of ' + when(t.date) + '?', 'Delete', function () {
            run(api('DELETE', '/api/takes/' + t.id).then(function () { toast('Deleted', true); return takesLoad(); }));
          });
        }, 'dan big')));
  }

  function day(s) { var p = s.split('-'); return new Date(+p[0], p[1] - 1, +p[2]); }
  function pStats() {
    var n = P.days;
    pUI.seg.querySelectorAll('button').forEach(function (b) { b.setAttribute('aria-pressed', Number(b.dataset.d) === n); });
    pUI.csv.href = '/api/practice.csv?days=' + n;
    pUI.csv.setAttribute('aria-label', 'Download the last ' + n + ' days as CSV');
    return run(api('GET', '/api/practice?days=' + n).then(function (r) {
      if (n !== P.days) return;
      pUI.total.textContent = dur(r.total) + ' in the last ' + n + ' days';
      // every day of the period, those without practice at 0
      var by = {}, days = [];
      r.days.forEach(function (d) { by[d.day] = d.seconds; });
      var a = day(r.from), b = day(r.to);
      for (var d = a; d <= b && days.length < 400; d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)) {
        var k = d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
        days.push({ d: d, s: by[k] || 0 });
      }
      fill(pUI.chart, chart(days));
      fill(pUI.tracks);
      var max = 0;
      r.tracks.forEach(function (t) { max = Math.max(max, t.seconds); });
      if (!r.tracks.length) pUI.tracks.append(h('p', { class: 'mut' }, 'No practice in this period.'));
      r.tracks.forEach(function (t) {
        var g = h('div', { class: 'hb' });
        var line = function (name, s, sub) {
          g.append(h('div', { class: 'hl' + (sub ? ' s' : '') }, h('div', { class: 't' }, name),
            h('div', null, h('span', null, h('i', { style: 'width:' + (max ? Math.max(1, 100 * s / max) : 0) + '%' })), h('span', { class: 'n' }, dur(s)))));
        };
        line(h('b', null, t.title || F.base(t.file)), t.seconds);
        t.sections.forEach(function (s) { line('§\u00a0' + s.name, s.seconds, true); });
        pUI.tracks.append(g);
      });
    }));
  }
  var SVG = 'http://www.w3.org/2000/svg';
  function sv(tag, a, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in a) e.setAttribute(k, a[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function chart(days) {
    var W = Math.max(280, Math.min(900, pUI.chart.clientWidth || 640)), H = 200, top = 22, bot = 26, n = days.length, max = 60;
    days.forEach(function (d) { max = Math.max(max, d.s); });
    var step = W / n, bw = Math.max(3, step * (n > 10 ? 0.7 : 0.6));
    var total = days.reduce(function (a, d) { return a + d.s; }, 0);
    var svg = sv('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img', 'aria-label': 'Practice per day: ' + dur(total) + ' over ' + n + ' days' });
    var wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
    days.forEach(function (d, i) {
      var x = i * step + (step - bw) / 2, hh = (H - top - bot) * d.s / max, y = H - bot - hh;
      svg.append(sv('rect', { x: x, y: H - bot - 2, width: bw, height: 2, class: 'z' }));
      if (d.s) {
        var r = sv('rect', { x: x, y: y, width: bw, height: Math.max(2, hh), rx: 3, class: 'b' });
        r.append(sv('title', {}, d.d.toDateString() + ': ' + dur(d.s)));
        svg.append(r);
        if (n <= 10) svg.append(sv('text', { x: x + bw / 2, y: y - 6, 'text-anchor': 'middle' }, dur(d.s)));
      }
      var lab = n <= 10 ? wd[d.d.getDay()] : (d.d.getDate() === 1 || i % 5 === 0 || i === n - 1 ? String(d.d.getDate()) : '');
      if (lab) svg.append(sv('text', { x: x + bw / 2, y: H - 8, 'text-anchor': 'middle' }, lab));
    });
    return svg;
  }
  function secLoad(fromEvent) {
    if (fromEvent && pUI.secList.querySelector('form')) { pUI.secStale = true; return; }
    return run(api('GET', '/api/sections').then(secShow));
  }
  function secShow(r) {
    pUI.secStale = false;
    pUI.sections = r.sections || [];
    var S = F.S, song = S && S.song;
    pUI.secTitle.textContent = song ? 'of “' + F.songTitle(song) + '”' : '';
    fill(pUI.secList);
    if (!r.sections.length) pUI.secList.append(h('li', { class: 'more' }, song ? 'No sections yet: set a loop (A, B) and save it.' : 'Nothing is playing.'));
    r.sections.forEach(function (s) { pUI.secList.append(secRow(s, r.active === s.index)); });
  }
  function secDesc(s) {
    return F.time(s.start, true) + ' – ' + F.time(s.end, true) + ' · ' + (s.passes == null ? '∞' : '×' + s.passes) + (s.tempo ? ' · ' + s.tempo + '%' : '');
  }
  function secRow(s, active) {
    var li = h('li', { class: active ? 'cur' : '' });
    var view = function () {
      fill(li, h('div', { class: 'nm' }, h('b', null, s.index + '. ' + s.name), h('span', null, secDesc(s))),
        h('div', { class: 'acts' },
          btn('Play', 'Play the section ' + s.name, function () { F.act('section_play', s.index); }),
          btn('Queue', 'Queue the section ' + s.name, function () {
            run(api('POST', '/api/sections/' + s.index + '/queue').then(function () { toast('Queued “' + s.name + '”', true); }));
          }),
          btn('Edit', 'Rename or edit the section ' + s.name, edit),
          btn('✕', 'Delete the section ' + s.name, function () {
            confirmIn(pUI.secSlot, 'Delete the section “' + s.name + '”?', 'Delete', function () {
              run(api('DELETE', '/api/sections/' + s.index).then(secShow));
            });
          }, 'dan')));
    };
    var field = function (label, input) { return h('label', null, label, input); };
    var edit = function () {
      var nm = h('input', { type: 'text', value: s.name, maxlength: 64, required: true });
      var st = h('input', { type: 'text', inputmode: 'decimal', value: exact(s.start) });
      var en = h('input', { type: 'text', inputmode: 'decimal', value: exact(s.end) });
      var pa = h('input', { type: 'number', min: 1, max: 1000, value: s.passes == null ? '' : s.passes, placeholder: '∞' });
      var te = h('input', { type: 'number', min: 50, max: 150, step: 5, value: s.tempo == null ? '' : s.tempo, placeholder: '—' });
      var f = h('form', { class: 'edit' }, field('Name', nm), field('Start (m:ss)', st), field('End (m:ss)', en),
        field('Passes (empty: ∞)', pa), field('Tempo % (empty: none)', te),
        h('div', { class: 'row' }, h('button', { type: 'submit', class: 'btn pri' }, 'Save'), btn('Cancel', 'Cancel', function () {
          if (pUI.secStale) secLoad(); else view();
        })));
      f.addEventListener('submit', function (e) {
        e.preventDefault();
        var b = {}, a = secs(st.value), z = secs(en.value);
        if (!(a >= 0) || !(z > a)) return toast('The end must come after the start (m:ss or seconds)');
        if (nm.value.trim() !== s.name) b.name = nm.value.trim();
        if (st.value !== exact(s.start)) b.start = a;
        if (en.value !== exact(s.end)) b.end = z;
        if (pa.value !== (s.passes == null ? '' : String(s.passes))) b.passes = pa.value === '' ? null : Number(pa.value);
        if (te.value !== (s.tempo == null ? '' : String(s.tempo))) b.tempo = te.value === '' ? null : Number(te.value);
        if (!Object.keys(b).length) return view();
        run(api('PUT', '/api/sections/' + s.index, b).then(secShow));
      });
      fill(li, f);
      nm.focus();
    };
    view();
    return li;
  }
  P.show = function () {
    if (!pUI) pBuild();
    pStats();
    secLoad();
    recLoad();
    takesLoad();
    secKey = sk(F.S);
    takeKey = tk(F.S);
    P.stale = false;
    pUI.saveBtn.disabled = !(F.S && F.S.loop);
  };
  function sk(s) { return s ? (s.song ? s.song.file : '') + '|' + s.sections + '|' + (s.section ? s.section.index : '') : ''; }
  function tk(s) { return s ? (s.song ? s.song.file : '') + '|' + (s.loop ? s.loop.start + '-' + s.loop.end : '') + '|' + (s.section ? s.section.start + '-' + s.section.end : '') : ''; }
  var takeKey = '';
  var pState = null;
  P.ev = function (n, d, vis) {
    if (!pUI) return;
    if (n === 'status') {
      pUI.saveBtn.disabled = !d.loop;
      // what was just played counts once playing pauses or stops (also when no `practice` event comes)
      if (d.state !== pState) { if (pState === 'play' && vis) pStats(); pState = d.state; }
      var k = sk(d), t = tk(d);
      if (k !== secKey) { secKey = k; if (vis) secLoad(true); else P.stale = true; }
      // the takes follow the track, and which loop or section plays now comes first
      if (t !== takeKey) { takeKey = t; if (vis) takesLoad(); else P.stale = true; }
    } else if (n === 'practice') {
      if (vis) pStats(); else P.stale = true;
    } else if (n === 'recording') {
      // on or off, its phase, a take kept or deleted, a problem
      if (vis) { recLoad(); takesLoad(); } else P.stale = true;
    }
  };

  // ================= Cards
  var C = F.views.cards = {};
  var cUI = null, learning = null;
  // choose what a card plays: an album, a playlist or a folder of the library, or a typed target
  function chooser(submitText, onGo, onCancel) {
    var kind = h('select', { 'aria-label': 'What the card plays' },
      h('option', { value: 'album' }, 'Album'), h('option', { value: 'playlist' }, 'Playlist'),
      h('option', { value: 'folder' }, 'Folder'), h('option', { value: 'other' }, 'Typed target'));
    var text = h('input', { type: 'text', class: 'grow', 'aria-label': 'Album, playlist, folder or target', autocomplete: 'off' });
    var cap = h('input', { type: 'number', min: 0, max: 100, placeholder: 'none', 'aria-label': 'Volume cap (optional)' });
    var sugg = h('ul', { class: 'sugg', hidden: true });
    var f = h('form', null,
      h('div', { class: 'bar-row' }, kind, text), sugg,
      h('div', { class: 'bar-row' }, h('label', { class: 'row' }, 'Volume cap', cap), h('button', { type: 'submit', class: 'btn pri' }, submitText),
        onCancel ? btn('Cancel', 'Cancel', onCancel) : null));
    var gen = 0;
    var show = function (list) {
      fill(sugg);
      list.slice(0, 8).forEach(function (x) {
        sugg.append(h('li', null, h('button', { type: 'button', onclick: function () { text.value = x; sugg.hidden = true; } }, x)));
      });
      sugg.hidden = !list.length;
    };
    var uniq = function (a) { return a.filter(function (x, i) { return x && a.indexOf(x) === i; }); };
    var look = debounce(function () {
      var k = kind.value, q = text.value.trim(), g = ++gen, p;
      if (k === 'other') { sugg.hidden = true; return; }
      if (k === 'playlist') p = api('GET', '/api/playlists').then(function (r) {
        return r.playlists.map(function (x) { return x.name; }).filter(function (x) { return x.toLowerCase().indexOf(q.toLowerCase()) >= 0; });
      });
      else if (!q) p = k === 'album'
        ? api('GET', '/api/library/albums?limit=8').then(function (r) { return r.items.map(function (a) { return a.album; }); })
        : api('GET', '/api/library/folder?limit=8').then(function (r) { return r.folders; });
      else p = api('GET', '/api/library/search' + qs({ q: q, limit: 50 })).then(function (r) {
        return uniq(r.songs.map(function (s) { return k === 'album' ? s.album : s.file.slice(0, s.file.lastIndexOf('/')); }));
      });
      p.then(function (l) { if (g === gen) show(uniq(l)); }).catch(function () {});
    }, 250);
    var hint = function () {
      text.placeholder = { album: 'Album name', playlist: 'Playlist name', folder: 'Folder (path in the music folder)', other: 'e.g. action:toggle or piece:path/file.flac' }[kind.value];
    };
    kind.addEventListener('change', function () { text.value = ''; hint(); look(); });
    text.addEventListener('input', look);
    text.addEventListener('focus', look);
    hint();
    f.addEventListener('submit', function (e) {
      e.preventDefault();
      var v = text.value.trim();
      if (!v) return text.focus();
      var target = kind.value === 'other' ? v : kind.value + ':' + v;
      onGo(target, cap.value === '' ? null : Number(cap.value), f);
    });
    return f;
  }
  function cBuild() {
    var v = $('v-cards');
    var strip = h('div', { class: 'strip', 'aria-live': 'polite', 'aria-label': 'Buttons and cards as they happen' }, h('span', { class: 'mut' }, 'Press a button or show a card…'));
    var wait = h('div', { class: 'wait', role: 'status', hidden: true });
    var learn = chooser('Learn a card', function (target, cap) {
      var b = { target: target };
      if (cap != null) b.volume_max = cap;
      run(api('POST', '/api/cards/learn', b).then(function () { learning = target; cWait(); }));
    });
    var list = h('ul', { class: 'list' }), unk = h('ul', { class: 'list' }), slot = h('div');
    v.append(h('h2', null, 'Live'), strip, h('h2', null, 'Learn a card'), learn, wait,
      h('h2', null, 'Cards'), slot, list, h('h2', null, 'Unknown cards read lately'), unk);
    cUI = { strip: strip, wait: wait, list: list, unk: unk, slot: slot };
  }
  function cWait(done) {
    var w = cUI.wait;
    w.hidden = !learning && !done;
    w.classList.toggle('done', !!done);
    if (done) fill(w, h('b', null, '✓ Card ' + done.id + ' learned'), h('p', null, 'It plays ' + pretty(done.learned) + '.'));
    else if (learning) fill(w, h('b', null, 'Show the new card to the reader…'), h('p', null, 'It will play ' + pretty(learning) + '.'),
      btn('Stop waiting', 'Stop waiting for a card', function () {
        run(api('POST', '/api/cards/learn/cancel').then(function () { learning = null; cWait(); }));
      }));
  }
  function pretty(t) {
    if (F.isURL(t)) return 'the stream “' + F.host(t) + '”';
    var i = String(t).indexOf(':');
    if (i < 0) return t;
    var k = t.slice(0, i), v = t.slice(i + 1);
    return ({ album: 'the album', playlist: 'the playlist', folder: 'the folder', piece: 'the piece', action: 'the action' }[k] || k) + ' “' + v + '”';
  }
  function cLoad() {
    return run(api('GET', '/api/cards').then(function (r) {
      var busy = cUI.unk.querySelector('form');
      learning = r.learning || null;
      if (learning || !cUI.wait.classList.contains('done')) cWait();
      fill(cUI.list);
      if (!r.cards.length) cUI.list.append(h('li', { class: 'more' }, 'No cards yet'));
      r.cards.forEach(function (c) {
        cUI.list.append(h('li', null,
          h('div', { class: 'nm' }, h('b', null, pretty(c.target)),
            h('span', null, h('span', { class: 'mono' }, c.id), ' · ', c.volume_max != null ? 'volume ≤ ' + c.volume_max + ' · ' : '', c.origin === 'configured' ? 'from the configuration' : 'learned')),
          h('div', { class: 'acts' }, btn('Forget…', 'Forget the card ' + c.id, function () {
            confirmIn(cUI.slot, 'Forget the card ' + c.id + '?', 'Forget', function () { run(api('DELETE', '/api/cards/' + enc(c.id)).then(cLoad)); });
          }, 'dan'))));
      });
      // an assignment being typed is not swept away by a card read meanwhile
      cUI.unkStale = !!busy;
      if (busy) return;
      fill(cUI.unk);
      if (!r.unknown.length) cUI.unk.append(h('li', { class: 'more' }, 'None'));
      r.unknown.forEach(function (id) {
        var li = h('li', null, h('div', { class: 'nm' }, h('b', { class: 'mono' }, id)));
        var acts = h('div', { class: 'acts' });
        var a = btn('Assign…', 'Assign the card ' + id, function () {
          a.remove();
          var f = chooser('Assign', function (target, cap) {
            var b = { id: id, target: target };
            if (cap != null) b.volume_max = cap;
            run(api('POST', '/api/cards', b).then(function () { f.remove(); toast('Card ' + id + ' assigned', true); cLoad(); }));
          }, function () { f.remove(); acts.append(a); if (cUI.unkStale) cLoad(); });
          li.append(f);
        });
        acts.append(a);
        li.append(acts);
        cUI.unk.append(li);
      });
    }));
  }
  function chip(parts) {
    var s = cUI.strip;
    if (s.firstChild && s.firstChild.className === 'mut') s.firstChild.remove();
    var e = h('span', { class: 'ev' }, parts);
    s.prepend(e);
    while (s.children.length > 6) s.lastChild.remove();
    setTimeout(function () { e.remove(); }, 6000);
  }
  C.show = function () {
    if (!cUI) cBuild();
    cLoad();
    C.stale = false;
  };
  C.ev = function (n, d, vis) {
    if (!cUI) return;
    if (n === 'input') {
      chip([h('b', null, d.control), ' ', d.gesture, d.device ? ' · ' + d.device : '', d.action ? ' → ' + d.action : '']);
    } else if (n === 'card') {
      chip([h('b', null, 'card '), h('span', { class: 'mono' }, d.id), d.known ? ' (known)' : ' (unknown)']);
      if (d.learned) { learning = null; cWait(d); }
      if (vis) cLoad(); else C.stale = true;
    }
  };

  // ================= Box
  var B = F.views.box = {};
  var bUI = null, lastScan = null;
  function bBuild() {
    bUI = { el: $('v-box'), scan: h('div'), timers: h('div'), sleep: h('div'), alarms: h('ul', { class: 'list' }), aSlot: h('div') };
    bUI.timers.append(h('h2', null, 'Sleep timer'), bUI.sleep, h('h2', null, 'Alarms'), bUI.aSlot, bUI.alarms, aForm());
  }
  // ---- the sleep timer and the alarms
  function bSleep() {
    var s = F.S && F.S.sleep;
    fill(bUI.sleep,
      h('p', { class: 'mut' }, s ? 'The music fades out and stops in ' + dur(s) + '.' : 'Off: the music plays on.'),
      h('div', { class: 'bar-row' }, [15, 30, 45, 60, 90].map(function (m) {
        return btn(m + ' min', 'Sleep in ' + m + ' minutes', function () { F.act('sleep', m * 60); });
      }), s ? btn('Off', 'Turn the sleep timer off', function () { F.act('sleep', 0); }, 'dan') : null));
  }
  var DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  var lab = function (t, el) { return h('label', null, t, el); };
  var reps = function (r) {
    return { daily: 'every day', weekdays: 'weekdays', weekends: 'weekends' }[r] || (/^\d{4}-/.test(r) ? 'once, on ' + r : r.split(',').join(', '));
  };
  function aForm() {
    var time = h('input', { type: 'time', value: '07:00', required: true });
    var rep = h('select', null, [['daily', 'Every day'], ['weekdays', 'Weekdays'], ['weekends', 'Weekends'], ['days', 'Some days…'], ['once', 'Once, on a date']]
      .map(function (o) { return h('option', { value: o[0] }, o[1]); }));
    var days = h('div', { class: 'seg', role: 'group', 'aria-label': 'Days', hidden: true }, DAYS.map(function (d) {
      var b = h('button', { type: 'button', 'aria-pressed': 'false' }, d);
      b.addEventListener('click', function () { b.setAttribute('aria-pressed', b.getAttribute('aria-pressed') !== 'true'); });
      return b;
    }));
    var date = h('input', { type: 'date', hidden: true, 'aria-label': 'Date' });
    rep.addEventListener('change', function () { days.hidden = rep.value !== 'days'; date.hidden = rep.value !== 'once'; });
    var play = h('input', { type: 'text', required: true, maxlength: 2048, placeholder: 'playlist:Wake, folder:…, album:… or a stream URL', 'aria-label': 'What it plays' });
    var vol = h('input', { type: 'number', min: 0, max: 100, placeholder: 'as is' });
    var fade = h('input', { type: 'number', min: 0, max: 3600, value: 30 });
    var f = h('form', { class: 'box' },
      h('div', { class: 'edit' }, lab('Time', time), lab('Repeat', rep), lab('Volume', vol), lab('Fade-in (s)', fade)),
      h('div', { class: 'bar-row' }, days, date),
      h('div', { class: 'bar-row' }, h('span', { class: 'grow' }, play), h('button', { type: 'submit', class: 'btn pri' }, 'Add alarm')));
    f.addEventListener('submit', function (e) {
      e.preventDefault();
      var r = rep.value;
      if (r === 'days') r = Array.from(days.children).filter(function (b) { return b.getAttribute('aria-pressed') === 'true'; }).map(function (b) { return b.textContent; }).join(',');
      if (r === 'once') r = date.value;
      if (!r) return toast(rep.value === 'once' ? 'Choose the date' : 'Choose the days');
      var b = { time: time.value, repeat: r, play: play.value.trim() };
      if (vol.value !== '') b.volume = Number(vol.value);
      if (fade.value !== '') b.fade = Number(fade.value);
      run(api('POST', '/api/alarms', b).then(function () { play.value = ''; toast('Alarm added', true); aLoad(); }));
    });
    return f;
  }
  function aLoad() {
    return run(api('GET', '/api/alarms').then(function (r) {
      fill(bUI.alarms);
      if (!r.alarms.length) bUI.alarms.append(h('li', { class: 'more' }, 'No alarms'));
      r.alarms.forEach(function (a) {
        var sw = h('button', { type: 'button', class: 'sw', role: 'switch', 'aria-checked': String(a.enabled), 'aria-label': 'Alarm at ' + a.time + ' on' });
        sw.addEventListener('click', function () {
          run(api('POST', '/api/alarms/' + a.id, { enabled: !a.enabled }).then(aLoad));
        });
        bUI.alarms.append(h('li', null, sw,
          h('div', { class: 'nm' }, h('b', null, a.time + ' · ' + reps(a.repeat)),
            h('span', null, /^https?:/.test(a.play) ? a.play : pretty(a.play), ' · ', a.volume != null ? 'volume ' + a.volume : 'volume as it is', ' · fade-in ' + dur(a.fade),
              a.enabled ? (a.next_local ? ' · next ' + a.next_local : ' · not again') : ' · off')),
          h('div', { class: 'acts' }, btn('Remove…', 'Remove the alarm at ' + a.time, function () {
            confirmIn(bUI.aSlot, 'Remove the alarm at ' + a.time + '?', 'Remove', function () { run(api('DELETE', '/api/alarms/' + a.id).then(aLoad)); });
          }, 'dan'))));
      });
    }));
  }
  var aLater = debounce(aLoad, 500);
  function bScan(s) {
    lastScan = s = s || lastScan || { running: false };
    var u = bUI.scan, pct = s.total ? Math.min(100, Math.round(100 * (s.done || 0) / s.total)) : null;
    var bar = h('i', { style: 'width:' + (s.running ? (pct != null ? pct : 100) : 0) + '%' + (s.running && pct == null ? ';opacity:.4' : '') });
    fill(u,
      h('div', { class: 'bar-row' },
        h('button', { type: 'button', class: 'btn pri', disabled: s.running, onclick: function () { run(api('POST', '/api/scan', { full: false })); } }, 'Scan for changes'),
        h('button', { type: 'button', class: 'btn', disabled: s.running, onclick: function () { run(api('POST', '/api/scan', { full: true })); } }, 'Full rescan')),
      s.running ? h('div', { class: 'bar-row' },
        h('div', { class: 'prog', role: 'progressbar', 'aria-label': 'Scan', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': pct == null ? null : pct }, bar),
        h('span', null, (s.phase || 'scanning') + ' · ' + (s.done || 0) + (s.total ? ' / ' + s.total : '') + ' files')) : null,
      !s.running && s.summary ? h('p', { class: 'mut' }, s.summary) : null);
  }
  function bLoad() {
    return run(api('GET', '/api/box').then(function (b) {
      var el = bUI.el, ses = F.session || {};
      var fnd = b.findings.slice().sort(function (x, y) { return x.ok - y.ok; });
      var bad = fnd.filter(function (x) { return !x.ok; }).length;
      var outs = h('div');
      b.outputs.forEach(function (o) {
        var sw = h('button', { type: 'button', class: 'sw', role: 'switch', 'aria-checked': String(o.enabled), 'aria-label': o.name });
        sw.addEventListener('click', function () {
          var on = sw.getAttribute('aria-checked') !== 'true';
          sw.setAttribute('aria-checked', on);
          run(api('POST', '/api/outputs/' + o.id, { enabled: on }).catch(function (e) { sw.setAttribute('aria-checked', !on); throw e; }));
        });
        outs.append(h('div', { class: 'fd o' }, sw, h('span', { class: 'grow' }, o.name)));
      });
      var L = b.library || {};
      fill(el,
        h('h2', null, 'Fermata ', b.version),
        h('p', { class: 'row' }, h('span', { class: 'mut grow' }, ses.role === 'owner' ? 'You are the owner' + (ses.login_required ? '' : ' (on the box itself)') : 'Guest'),
          ses.login_required ? btn('Log out', 'Log out', F.logout) : null),
        h('h2', null, 'Health ', h('span', { class: 'mut' }, bad ? '(' + bad + (bad > 1 ? ' problems)' : ' problem)') : '(all good)')),
        h('div', null, fnd.map(function (x) {
          return h('div', { class: 'fd ' + (x.ok ? 'good' : 'bad') }, h('b', { 'aria-label': x.ok ? 'good' : 'problem' }, x.ok ? '✓' : '✗'),
            h('div', null, h('div', null, x.what), x.fix && !x.ok ? h('div', { class: 'mut' }, 'Fix: ', h('span', { class: 'mono' }, x.fix)) : null));
        })),
        h('h2', null, 'Outputs'), outs,
        h('h2', null, 'Volume'),
        h('dl', { class: 'kv' }, h('dt', null, 'Maximum'), h('dd', null, b.volume_max + '%'),
          h('dt', null, 'At start'), h('dd', null, b.volume_start != null ? b.volume_start + '%' : 'as it was')),
        bUI.timers,
        h('h2', null, 'Library'),
        h('dl', { class: 'kv' }, h('dt', null, 'Songs'), h('dd', null, L.songs != null ? L.songs : '–'),
          h('dt', null, 'Albums'), h('dd', null, L.albums != null ? L.albums : '–'),
          h('dt', null, 'Artists'), h('dd', null, L.artists != null ? L.artists : '–'),
          h('dt', null, 'Uploads'), h('dd', null, b.upload ? 'on: the Library page takes files' : 'off (the music folder is not writable)')),
        bUI.scan);
      bScan(b.scan);
      bSleep();
      aLoad();
    }));
  }
  B.show = function () {
    if (!bUI) bBuild();
    bLoad();
    B.stale = false;
  };
  B.ev = function (n, d, vis) {
    if (!bUI) return;
    if (n === 'scan') {
      var was = lastScan && lastScan.running;
      bScan(d);
      if (was && !d.running && vis) bLoad();
    } else if (n === 'outputs' || n === 'library') {
      if (vis) bLoad(); else B.stale = true;
    } else if (n === 'status' && vis) {
      bSleep();
      aLater();
    }
  };
})();
