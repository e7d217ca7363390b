// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice The part of Multicall3 (github.com/mds1/multicall) that batched reads use, with the
/// same ABI: `aggregate3` and `getEthBalance`. The test chain places it at Multicall3's
/// canonical address, where it lives on mainnet and most other chains.
contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory data) = calls[i].target.call(calls[i].callData);
            require(success || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(success, data);
        }
    }

    function getEthBalance(address addr) public view returns (uint256 balance) {
        balance = addr.balance;
    }
}
