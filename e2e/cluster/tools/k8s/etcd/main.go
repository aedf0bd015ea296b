// Command etcd is etcd's server at the version k8s.io/kubernetes requires:
// etcd publishes no main package as a module, so this wraps etcdmain.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
