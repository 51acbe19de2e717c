// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * svg.c - an SVG Gantt chart of a schedule, duplicates hatched; coloured
 * by task, or by group (the placer's jobs) with a legend.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sched_priv.h"

#define TH_SVG_LEFT	70
#define TH_SVG_TOP	40
#define TH_SVG_ROW	28
#define TH_SVG_PLOT	1000

static void th_svg_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

int th_sched_write_svg(const struct th_sched *s, FILE *f, const char *title)
{
	return th_sched_write_svg_groups(s, f, title, NULL, 0, NULL);
}

int th_sched_write_svg_groups(const struct th_sched *s, FILE *f,
			      const char *title, const unsigned int *group,
			      unsigned int ngroups, const char *const *names)
{
	const struct th_dag *dag = s->dag;
	unsigned int p = dag->nprocs, i, height;
	struct th_sched_metrics m;
	double scale, tick, t, k;
	int ret;

	ret = th_sched_metrics(s, &m);
	if (ret)
		return ret;
	scale = m.makespan > 0 ? TH_SVG_PLOT / m.makespan : 1;
	height = TH_SVG_TOP + p * TH_SVG_ROW + 50 + (group ? 20 : 0);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" font-family=\"sans-serif\" font-size=\"11\">\n",
		TH_SVG_LEFT + TH_SVG_PLOT + 30, height);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\">", f);
	th_svg_escape(f, title);
	fprintf(f, " (makespan %.4g, SLR %.4g, %u inserted, %u duplicated; hatched = duplicate)</text>\n",
		m.makespan, m.slr, m.ninserted, m.nduplicated);
	for (i = 0; i < p; i++)
		fprintf(f, "<text x=\"10\" y=\"%u\">p%u</text><line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#ddd\"/>\n",
			TH_SVG_TOP + i * TH_SVG_ROW + 18, i, TH_SVG_LEFT,
			TH_SVG_TOP + (i + 1) * TH_SVG_ROW,
			TH_SVG_LEFT + TH_SVG_PLOT, TH_SVG_TOP + (i + 1) * TH_SVG_ROW);
	for (i = 0; i < s->nslots; i++) {
		const struct th_sched_slot *x = &s->slots[i];
		double x0 = TH_SVG_LEFT + x->start * scale;
		double w = (x->finish - x->start) * scale;
		unsigned int y = TH_SVG_TOP + x->proc * TH_SVG_ROW + 3;
		unsigned int g = group ? group[x->task] : x->task;
		unsigned int hue = group ? (g < ngroups ? g * 360 / ngroups : 0) :
				   (x->task * 47) % 360;
		bool dup = x->flags & TH_SCHED_SLOT_DUP;

		if (dag->virt[x->task] || !(w > 0))
			continue;
		fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"",
			x0, y, w, TH_SVG_ROW - 6);
		if (dup && !group)
			fputs("#ffffff", f);
		else
			fprintf(f, "hsl(%u,60%%,%u%%)", hue, dup ? 90 : 75);
		fprintf(f, "\" stroke=\"%s\"%s><title>", dup ? "#c00" : "#333",
			dup ? " stroke-dasharray=\"3,2\"" : "");
		th_svg_escape(f, dag->names[x->task]);
		fprintf(f, "%s p%u [%.4g, %.4g]</title></rect>\n",
			dup ? " (duplicate)" : "", x->proc, x->start, x->finish);
		/* hatching drawn as plain lines: renderers without patterns show it too */
		for (k = 4; dup && k + TH_SVG_ROW - 6 <= w; k += 8)
			fprintf(f, "<line x1=\"%.2f\" y1=\"%u\" x2=\"%.2f\" y2=\"%u\" stroke=\"#c88\"/>\n",
				x0 + k, y + TH_SVG_ROW - 6, x0 + k + TH_SVG_ROW - 6, y);
		if (w >= 7.0 * (1 + (double)strlen(dag->names[x->task]))) {
			fprintf(f, "<text x=\"%.2f\" y=\"%u\"%s>", x0 + 3, y + 15,
				dup ? " fill=\"#c00\"" : "");
			th_svg_escape(f, dag->names[x->task]);
			fputs(dup ? "*" : "", f);
			fputs("</text>\n", f);
		}
	}
	/* time axis, about ten ticks at a round step */
	tick = m.makespan > 0 ? pow(10, floor(log10(m.makespan / 10))) : 1;
	if (m.makespan / tick > 25)
		tick *= 5;
	else if (m.makespan / tick > 12)
		tick *= 2;
	for (t = 0; t <= m.makespan * (1 + 1e-9); t += tick)
		fprintf(f, "<line x1=\"%.2f\" y1=\"%u\" x2=\"%.2f\" y2=\"%u\" stroke=\"#999\"/><text x=\"%.2f\" y=\"%u\" text-anchor=\"middle\">%g</text>\n",
			TH_SVG_LEFT + t * scale, TH_SVG_TOP + p * TH_SVG_ROW,
			TH_SVG_LEFT + t * scale, TH_SVG_TOP + p * TH_SVG_ROW + 5,
			TH_SVG_LEFT + t * scale, TH_SVG_TOP + p * TH_SVG_ROW + 18, t);
	for (i = 0; group && i < ngroups; i++) {
		unsigned int x = TH_SVG_LEFT + i * 110;
		unsigned int y = TH_SVG_TOP + p * TH_SVG_ROW + 30;

		fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"14\" height=\"12\" fill=\"hsl(%u,60%%,75%%)\" stroke=\"#333\"/><text x=\"%u\" y=\"%u\">",
			x, y, i * 360 / ngroups, x + 18, y + 10);
		th_svg_escape(f, names ? names[i] : "");
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
