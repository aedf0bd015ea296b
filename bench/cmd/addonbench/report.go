package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// ---- report ----

// row is one line of the table.
type row struct {
	Workload  string  `json:"workload"`
	Registry  string  `json:"registry"`
	Addonpack string  `json:"addonpack"`
	Peer      string  `json:"peer"`
	APms      float64 `json:"addonpackMedianMs"`
	Peerms    float64 `json:"peerMedianMs"`
	Ratio     float64 `json:"ratio,omitempty"`
	Target    string  `json:"target"`
	Verdict   string  `json:"verdict"`
	APRange   string  `json:"addonpackRangeMs,omitempty"`
	PeerRange string  `json:"peerRangeMs,omitempty"`
	APRSSMiB  float64 `json:"addonpackPeakRssMiB"`
	PeerRSS   float64 `json:"peerPeakRssMiB"`
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread is "min–max" of the samples.
func spread(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%.0f–%.0f", lo, hi)
}

func maxRSSMiB(s *series) float64 {
	var m int64
	for _, v := range s.RSSKB {
		m = max(m, v)
	}
	return float64(m) / 1024
}

func (h *harness) table(many, verifyN int) []row {
	var rows []row
	cmp := func(workload, reg, apTool, peerTool, peerReg string, target float64, targetText string) {
		a, p := h.get(workload, apTool, reg), h.get(workload, peerTool, peerReg)
		if a == nil || p == nil {
			return
		}
		r := row{Workload: workload, Registry: reg, Addonpack: apTool, Peer: peerTool, APms: median(a.WallMS), Peerms: median(p.WallMS),
			APRSSMiB: maxRSSMiB(a), PeerRSS: maxRSSMiB(p), Target: targetText}
		r.APRange, r.PeerRange = spread(a.WallMS), spread(p.WallMS)
		if r.Peerms > 0 {
			r.Ratio = r.APms / r.Peerms
		}
		if target > 0 {
			r.Verdict = verdict(r.Ratio <= target, fmt.Sprintf("%.2fx of %.2fx", r.Ratio, target))
		} else {
			r.Verdict = "(info)"
		}
		rows = append(rows, r)
	}
	for _, reg := range []string{"distribution", "testregistry"} {
		cmp("publish-small", reg, "addonpack", "peer", reg, 0.35, "≤0.35x")
		cmp("publish-small", reg, "addonpack (re-publish, check remembered)", "peer", reg, 0.35, "≤0.35x")
		cmp("consume-small", reg, "addonpack", "peer", reg, 0.3, "≤0.3x")
		cmp("consume-small", reg, "addonpack (cached)", "peer", reg, 0.3, "≤0.3x")
		cmp("publish-large", reg, "addonpack", "peer", reg, 0.25, "≤0.25x")
		cmp("publish-large", reg, "addonpack (re-publish, check remembered)", "peer", reg, 0.25, "≤0.25x")
		cmp("publish-small", reg, "addonpack", peerValidated, reg, 0, "(info)")
		cmp("publish-large", reg, "addonpack", peerValidated, reg, 0.40, "≤0.40x validated peer")
		if h.get("publish-large-unrendered", "addonpack", reg) != nil && h.get("publish-large", "peer", reg) != nil {
			a, p := h.get("publish-large-unrendered", "addonpack", reg), h.get("publish-large", "peer", reg)
			rt := median(a.WallMS) / median(p.WallMS)
			rows = append(rows, row{Workload: "publish-large (CRDs not rendered)", Registry: reg, Addonpack: "addonpack", Peer: "peer",
				APms: median(a.WallMS), Peerms: median(p.WallMS), Ratio: rt, APRSSMiB: maxRSSMiB(a), PeerRSS: maxRSSMiB(p),
				Target: "≤0.25x (diagnostic)", Verdict: verdict(rt <= 0.25, fmt.Sprintf("%.2fx of 0.25x", rt))})
		}
		cmp("consume-large", reg, "addonpack", "peer", reg, 0, "(info)")
		cmp("consume-large", reg, "addonpack", "in-process gunzip+untar (stdlib)", "", 1.3, "≤1.3x gunzip+untar")
		cmp("consume-large", reg, "addonpack (cached)", "in-process gunzip+untar (stdlib)", "", 1.3, "≤1.3x gunzip+untar")
	}
	for _, reg := range []string{"distribution", "testregistry"} {
		for _, tool := range []string{"addonpack push --key (sequential calls)", "addonpack push --prefix --key (one call)", "addonpack push --prefix --key (again, checks remembered)"} {
			cmp("batch", reg, tool, "oras push (unsigned)", reg, 0.2, fmt.Sprintf("≤0.2x (%d add-ons)", many))
		}
	}
	rows = append(rows, h.verifyRows(verifyN)...)
	for _, k := range h.order {
		s := h.results[k]
		if !strings.HasPrefix(s.Workload, "huge-1GB") {
			continue
		}
		rss := maxRSSMiB(s)
		r := row{Workload: s.Workload, Registry: s.Registry, Addonpack: s.Tool, APms: median(s.WallMS), APRSSMiB: rss, Target: "peak RSS ≤128 MiB"}
		if strings.Contains(s.Tool, "peer") {
			r.Addonpack, r.Peer, r.Peerms, r.PeerRSS, r.APms, r.APRSSMiB = "", s.Tool, r.APms, rss, 0, 0
			r.Verdict = "(info)"
		} else {
			r.Verdict = verdict(rss <= 128 && !strings.Contains(s.Tool, "FAILED"), fmt.Sprintf("%.0f MiB = %.1fx the limit", rss, rss/128))
		}
		rows = append(rows, r)
	}
	return rows
}

func verdict(ok bool, detail string) string {
	if ok {
		return "MET (" + detail + ")"
	}
	return "NOT MET (" + detail + ")"
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "\n| workload | registry | addonpack | median ms (min–max) | peer / baseline | median ms (min–max) | ratio | target | verdict | peak RSS MiB (ap / peer) |\n")
	fmt.Fprintf(w, "|---|---|---|---:|---|---:|---:|---|---|---|\n")
	num := func(v float64) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f", v)
	}
	withRange := func(v float64, rg string) string {
		if v == 0 || rg == "" {
			return num(v)
		}
		return num(v) + " (" + rg + ")"
	}
	for _, r := range rows {
		ratio := "–"
		if r.Peerms > 0 && r.APms > 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", r.Workload, r.Registry, r.Addonpack, withRange(r.APms, r.APRange),
			r.Peer, withRange(r.Peerms, r.PeerRange), ratio, r.Target, r.Verdict, num(r.APRSSMiB), num(r.PeerRSS))
	}
}
