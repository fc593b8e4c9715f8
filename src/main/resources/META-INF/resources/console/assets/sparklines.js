// The queue table's sparklines: each row's posted and consumed messages per second over the last hour, minute by
// minute, drawn by uPlot from the numbers the row carries in data attributes (empty: no flow, drawn flat). A file of
// this origin, as the page's Content-Security-Policy requires: the console has no inline script.
(function () {
    'use strict';
    if (typeof uPlot === 'undefined') {
        return;
    }
    var MINUTES = 60;
    function numbers(box, name) {
        var text = box.getAttribute('data-' + name);
        if (!text) {
            return new Array(MINUTES).fill(0);
        }
        return text.split(',').map(Number);
    }
    var xs = [];
    for (var i = 0; i < MINUTES; i++) {
        xs.push(i);
    }
    var options = {
        width: 120,
        height: 28,
        pxAlign: true,
        legend: { show: false },
        cursor: { show: false },
        select: { show: false },
        scales: { x: { time: false }, y: { range: function (u, min, max) { var top = Math.max(max, 0.01); return [-top * 0.1, top * 1.1]; } } },
        axes: [{ show: false }, { show: false }],
        series: [
            {},
            { stroke: '#0b5cad', width: 1.5, points: { show: false } },
            { stroke: '#2e7d32', width: 1.5, points: { show: false } }
        ]
    };
    var boxes = document.querySelectorAll('.spark');
    for (var b = 0; b < boxes.length; b++) {
        var box = boxes[b];
        new uPlot(options, [xs, numbers(box, 'posted'), numbers(box, 'consumed')], box);
        box.setAttribute('data-drawn', 'true');
    }
}());
