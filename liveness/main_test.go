package liveness_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/internal/childtest"
)

func TestMain(m *testing.M) {
	childtest.Main()
	goleak.VerifyTestMain(m)
}
