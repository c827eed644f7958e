package manifest

import (
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
)

// Policy is an eval.Policy as recorded: every choice that changes a number.
type Policy struct {
	MinGrade     int    `json:"min_grade"`
	Grades       string `json:"grades"`
	Gain         string `json:"gain"`
	Unjudged     string `json:"unjudged"`
	Unanswerable string `json:"unanswerable"`
	Queries      string `json:"queries"`
	Unit         string `json:"unit"`
	Order        string `json:"order"`
	// JudgedDivisor and Like are left out when they hold their defaults
	// (k, none), so results written before they existed read the same.
	JudgedDivisor string `json:"judged_divisor,omitempty"`
	Like          string `json:"like,omitempty"`
}

// FromEval records p.
func FromEval(p eval.Policy) Policy {
	out := Policy{MinGrade: p.MinGrade, Grades: p.Scale.String(), Gain: p.Gain.String(),
		Unjudged: string(p.Unjudged), Unanswerable: string(p.Unanswerable), Queries: string(p.Queries),
		Unit: string(p.Unit), Order: p.Order, Like: p.Like}
	if p.JudgedDivisor != eval.JudgedByK {
		out.JudgedDivisor = string(p.JudgedDivisor)
	}
	return out
}

// Eval reads the recorded policy back, checking every value.
func (p Policy) Eval() (eval.Policy, error) {
	var out eval.Policy
	var err error
	if p.Like != "" {
		if _, err = out.SetLike(p.Like); err != nil {
			return out, err
		}
	}
	out.MinGrade, out.Order, out.JudgedDivisor = p.MinGrade, p.Order, eval.JudgedByK
	if p.JudgedDivisor != "" {
		if out.JudgedDivisor, err = eval.ParseJudgedDivisor(p.JudgedDivisor); err != nil {
			return out, err
		}
	}
	if out.Scale, err = judgments.ParseScale(p.Grades); err != nil {
		return out, err
	}
	if out.Gain, err = metric.ParseGain(p.Gain); err != nil {
		return out, err
	}
	if out.Unjudged, err = eval.ParseUnjudged(p.Unjudged); err != nil {
		return out, err
	}
	if out.Unanswerable, err = eval.ParseUnanswerable(p.Unanswerable); err != nil {
		return out, err
	}
	if out.Queries, err = eval.ParseQuerySet(p.Queries); err != nil {
		return out, err
	}
	out.Unit, err = eval.ParseUnit(p.Unit)
	return out, err
}

// fields lists the policy as (field, value) pairs named as in JSON.
func (p Policy) fields() [][2]string {
	return [][2]string{
		{"policy.min_grade", itoa(p.MinGrade)}, {"policy.grades", p.Grades}, {"policy.gain", p.Gain},
		{"policy.unjudged", p.Unjudged}, {"policy.unanswerable", p.Unanswerable},
		{"policy.queries", p.Queries}, {"policy.unit", p.Unit}, {"policy.order", p.Order},
		{"policy.judged_divisor", p.JudgedDivisor}, {"policy.like", p.Like},
	}
}
