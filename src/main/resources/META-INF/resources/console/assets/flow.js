// The console's flow chart: messages posted and consumed per second over the last hour, drawn by uPlot (served from
// its WebJar) from the numbers the page carries in data attributes. A file of this origin, as the page's
// Content-Security-Policy requires: the console has no inline script.
(function () {
    'use strict';
    var box = document.getElementById('flow');
    if (!box || typeof uPlot === 'undefined') {
        return;
    }
    function numbers(name) {
        var text = box.getAttribute('data-' + name);
        return text ? text.split(',').map(Number) : [];
    }
    var width = Math.max(280, Math.min(box.clientWidth || 640, 1000));
    new uPlot({
        width: width,
        height: 180,
        series: [
            {},
            { label: 'posted/s', stroke: '#0b5cad', width: 2 },
            { label: 'consumed/s', stroke: '#2e7d32', width: 2 }
        ],
        axes: [{}, { label: 'messages/s' }]
    }, [numbers('minutes'), numbers('posted'), numbers('consumed')], box);
    box.setAttribute('data-drawn', 'true');
}());
