package schema

import "testing"

func TestAssertsFormat(t *testing.T) {
	for name, want := range map[string]bool{
		"hostname": true, "ipv4": true, "date-time": true, "uri": true, "regex": true,
		"int32": false, "byte": false, "quantity": false, "": false,
	} {
		if got := AssertsFormat(name); got != want {
			t.Errorf("AssertsFormat(%q) = %v, want %v", name, got, want)
		}
	}
}
